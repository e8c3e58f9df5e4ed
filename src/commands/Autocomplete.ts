import { Effect } from "effect"
import type { AutocompleteSuggestion, Command as CommandWire } from "../../schemas/wire/Command.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { autocompleteList } from "./Commands.ts"

/**
 * GET /teams/{id}/commands/autocomplete_suggestions (Mattermost's GetSuggestions): for the typed input without its
 * slash, the commands whose trigger starts with it, in trigger order, with their hint and description. Once a space
 * follows a trigger only commands with declared arguments could suggest more; none of these has any.
 */
export const suggestions = (caller: Caller, teamId: string, userInput: string) =>
  Effect.gen(function*() {
    const commands: ReadonlyArray<CommandWire> = yield* autocompleteList(caller, teamId)
    const typed = userInput.replace(/^\//, "").toLowerCase()
    if (/\s/.test(typed)) return [] as ReadonlyArray<AutocompleteSuggestion>
    return [...commands]
      .sort((a, b) => a.trigger.localeCompare(b.trigger))
      .filter((c) => c.trigger.startsWith(typed))
      .map((c): AutocompleteSuggestion => ({
        Complete: c.trigger,
        Suggestion: c.trigger,
        Hint: c.auto_complete_hint,
        Description: c.auto_complete_desc,
        IconData: ""
      }))
  })
