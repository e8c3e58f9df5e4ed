/**
 * A bar chart of a figure per day, drawn as inline SVG (no charting library in the console's chunks). The picture is
 * one image with a name that says what it shows and its range; the numbers themselves are in the table beside it
 * (in a disclosure), so a screen reader or a keyboard gets every value, not only a picture of them.
 */
export interface Day {
  readonly day: string
  readonly value: number
}

const DAY = 86_400_000

/** The last `days` UTC days, oldest first, each with its value (a day the server left out had none). */
export const fillDays = (rows: ReadonlyArray<{ name: string; value: number }>, now: number, days = 30): Array<Day> => {
  const byDay = new Map(rows.map((r) => [r.name, r.value]))
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(now - (days - 1 - i) * DAY).toISOString().slice(0, 10)
    return { day, value: byDay.get(day) ?? 0 }
  })
}

const WIDTH = 600
const HEIGHT = 180
const LEFT = 36
const BOTTOM = 22

export const DayChart = ({ id, title, unit, days }: { id: string; title: string; unit: string; days: ReadonlyArray<Day> }) => {
  const max = Math.max(1, ...days.map((d) => d.value))
  const total = days.reduce((sum, d) => sum + d.value, 0)
  const peak = days.reduce((best, d) => (d.value > best.value ? d : best), days[0] ?? { day: "", value: 0 })
  const slot = (WIDTH - LEFT) / Math.max(1, days.length)
  const plot = HEIGHT - BOTTOM
  const summary = `${title}, bar chart of the ${days.length} days from ${days[0]?.day} to ${days.at(-1)?.day}: ${total} ${unit} in all` +
    (peak.value > 0 ? `, most on ${peak.day} (${peak.value}).` : ".")
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary}>
        <line x1={LEFT} y1={plot} x2={WIDTH} y2={plot} class="axis" />
        <text x={LEFT - 6} y={10} text-anchor="end" class="tick">{max}</text>
        <text x={LEFT - 6} y={plot} text-anchor="end" class="tick">0</text>
        {days.map((d, i) => {
          const h = (d.value / max) * (plot - 8)
          return <rect key={d.day} x={LEFT + i * slot + 1} y={plot - h} width={Math.max(1, slot - 2)} height={h} class="bar" />
        })}
        <text x={LEFT} y={HEIGHT - 4} class="tick">{days[0]?.day}</text>
        <text x={WIDTH} y={HEIGHT - 4} text-anchor="end" class="tick">{days.at(-1)?.day}</text>
      </svg>
      <details>
        <summary>{title}: the numbers</summary>
        <div class="table-wrap" role="region" aria-label={`${title}, by day`} tabIndex={0}>
          <table>
            <thead><tr><th scope="col">Day (UTC)</th><th scope="col">{unit[0].toUpperCase() + unit.slice(1)}</th></tr></thead>
            <tbody>{days.slice().reverse().map((d) => <tr key={d.day}><td>{d.day}</td><td>{d.value}</td></tr>)}</tbody>
          </table>
        </div>
      </details>
    </figure>
  )
}
