/**
 * The run's short references to its tool calls: the harness numbers every call its tool boundary answers, 1 for the
 * run's first, shows the number with the call's observation (`ref`), and the Draft cites a call by it (a token or
 * two where the provider's `tool_call_id` is about 30). `ids()` maps the numbers back, `ids()[ref - 1]`, before any
 * guard reads the Draft (`parseDiagnosisDraft`). NOTE: numbered by the model's own id, so a call that reuses an id
 * (refused as DUPLICATE_TOOL_CALL_ID) shows the number of the first: a reference and an id always name the same
 * checks. Per run: built by the harness, never shared.
 */
export function createCallRefs() {
  const refs = new Map<string, number>();
  const ids: string[] = [];
  return {
    /**
     * Numbers a call the boundary answers (the same number again for an id it has seen): `modelId` as the model
     * wrote it, `id` as the harness carries it on (checked, or a bounded copy of a refused one).
     */
    assign(modelId: string, id: string): number {
      const known = refs.get(modelId);
      if (known !== undefined) return known;
      ids.push(id);
      refs.set(modelId, ids.length);
      return ids.length;
    },
    /** The number shown with the call's observation; undefined for a call the boundary never answered. */
    refOf: (modelId: string): number | undefined => refs.get(modelId),
    /** The run's call ids by number, the first call's first. */
    ids: (): readonly string[] => ids,
  };
}

export type CallRefs = ReturnType<typeof createCallRefs>;
