/**
 * The notification sounds under Mattermost's names (desktop_notification_sound), synthesised with the Web Audio API:
 * a few notes each instead of shipping audio files. Unknown names play Bing, Mattermost's default.
 */
const SOUNDS: Record<string, ReadonlyArray<readonly [frequency: number, seconds: number]>> = {
  Bing: [[1318.5, 0.35]],
  Crackle: [[523.3, 0.06], [659.3, 0.06], [523.3, 0.06], [784, 0.12]],
  Down: [[784, 0.12], [523.3, 0.25]],
  Hello: [[659.3, 0.12], [880, 0.25]],
  Ripple: [[1046.5, 0.08], [1174.7, 0.08], [1318.5, 0.08], [1568, 0.2]],
  Upstairs: [[523.3, 0.1], [659.3, 0.1], [784, 0.1], [1046.5, 0.2]]
}

export const SOUND_NAMES = Object.keys(SOUNDS)

let context: AudioContext | undefined

export const playSound = (name: string | undefined) => {
  if (typeof AudioContext === "undefined") return
  const notes = SOUNDS[name ?? ""] ?? SOUNDS.Bing
  context ??= new AudioContext()
  const audio = context
  // A context made before any click starts suspended (autoplay rules); resuming may be refused, which only mutes it.
  if (audio.state === "suspended") void audio.resume().catch(() => undefined)
  let at = audio.currentTime + 0.01
  for (const [frequency, seconds] of notes) {
    const osc = audio.createOscillator()
    const gain = audio.createGain()
    osc.type = "sine"
    osc.frequency.value = frequency
    gain.gain.setValueAtTime(0.18, at)
    gain.gain.exponentialRampToValueAtTime(0.001, at + seconds)
    osc.connect(gain).connect(audio.destination)
    osc.start(at)
    osc.stop(at + seconds)
    at += seconds
  }
}
