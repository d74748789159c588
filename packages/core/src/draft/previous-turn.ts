/**
 * The only thing of a session that may enter a run: a frozen summary of the latest published diagnosis. Never the
 * history, never raw evidence, never reasoning.
 */
export type PreviousTurn = Readonly<{
  run_id: string;
  query: string;
  conclusion: string | null;
  findings: readonly string[];
  missing_info: readonly string[];
}>;
