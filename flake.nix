{
  description = "the service: a self-hosted team chat server that Mattermost clients connect to";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.05";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
      packageJson = builtins.fromJSON (builtins.readFile ./package.json);

      service = pkgs:
        let
          inherit (pkgs) lib;
          nodejs = pkgs.nodejs_20;
          # Everything but tests, benchmarks, CI scripts and local state; a flake source already holds only tracked files.
          src = lib.fileset.toSource {
            root = ./.;
            fileset = lib.fileset.difference ./. (lib.fileset.unions (map lib.fileset.maybeMissing [
              ./test
              ./bench
              ./.ci
              ./node_modules
              ./data
              ./flake.nix
              ./flake.lock
            ]));
          };
        in
        pkgs.buildNpmPackage {
          pname = packageJson.name;
          version = packageJson.version;
          inherit src nodejs;

          # Dependencies come straight from package-lock.json (each entry's URL and integrity): no hash to maintain.
          npmDeps = pkgs.importNpmLock { npmRoot = src; };
          npmConfigHook = pkgs.importNpmLock.npmConfigHook;

          # `npm run build` (scripts/build.mjs): the web client and the bundled server in dist/.
          npmBuildScript = "build";

          # Prebuilt native parts (embedded PostgreSQL, argon2, sharp's libvips, esbuild) need the Nix loader and libs.
          nativeBuildInputs = [ pkgs.makeWrapper ] ++ lib.optionals pkgs.stdenv.hostPlatform.isLinux [ pkgs.autoPatchelfHook ];
          buildInputs = lib.optionals pkgs.stdenv.hostPlatform.isLinux [ pkgs.stdenv.cc.cc.lib ];
          # The embedded PostgreSQL ships PL/Perl and PL/Python extensions the service never loads, and npm may add
          # musl variants of native packages next to the glibc ones.
          autoPatchelfIgnoreMissingDeps = [
            "libperl.so.5.26"
            "libpython3.6m.so.1.0"
            "libc.musl-x86_64.so.1"
            "libc.musl-aarch64.so.1"
          ];

          # dist/ is git-ignored, so the packing step leaves it out: copy it beside node_modules, where its imports
          # resolve, and run it with node (no tsx).
          postInstall = ''
            app=$out/lib/node_modules/${packageJson.name}
            cp -r dist $app/dist
            makeWrapper ${nodejs}/bin/node $out/bin/the-service \
              --add-flags "$app/dist/main.js"
          '';

          meta = {
            description = packageJson.description;
            mainProgram = "the-service";
            platforms = systems;
          };
        };
    in
    {
      packages = forAllSystems (pkgs: { default = service pkgs; });

      apps = forAllSystems (pkgs: {
        default = {
          type = "app";
          program = "${self.packages.${pkgs.stdenv.hostPlatform.system}.default}/bin/the-service";
        };
      });

      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.nodejs_20 pkgs.postgresql pkgs.redis ];
        };
      });
    };
}
