import { Context, FiberSet, Layer } from "effect"

/**
 * Work a command leaves running after its answer (a delayed /echo): kept in a set that lives as long as the server,
 * so that stopping the server interrupts it instead of leaving timers and writes behind.
 */
export class CommandFibers extends Context.Tag("service/CommandFibers")<CommandFibers, FiberSet.FiberSet>() {}

export const layer = Layer.scoped(CommandFibers, FiberSet.make())
