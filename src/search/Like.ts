/** LIKE patterns from user input: `\`, `%` and `_` escaped (PostgreSQL's default escape character is `\`). */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/** Matches values starting with the term. */
export const likePrefix = (term: string) => `${escapeLike(term)}%`

/** Matches values containing the term. */
export const likeContaining = (term: string) => `%${escapeLike(term)}%`
