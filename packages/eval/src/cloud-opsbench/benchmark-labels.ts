/**
 * From our report to Cloud-OpsBench's labels, so a live run is scored as the benchmark scores its agents (the fault
 * object, the root cause, both): read from the published conclusion only (a FALLBACK or FAILED run has none, and
 * scores wrong on all three).
 * - Root cause: the first of the system's root-cause labels the conclusion writes as a word of its own (the question
 *   lists them and asks for one).
 * - Fault object: the first candidate the conclusion names — written `app/<service>`, `node/<node>` or
 *   `namespace/<ns>`, or the bare name; a pod's name (`<service>-<hash>-<id>`) names its service. Candidates are the
 *   case's services (its logs' containers, sidecars left out), nodes (kubectl's node list) and namespace.
 * The earliest mention wins; at one position the longer name (`ts-order-other-service` before `ts-order-service`).
 */

export interface LabelCandidates {
  /** `app/<service>`, `node/<node>`, `namespace/<ns>`. */
  objects: readonly string[];
  labels: readonly string[];
}

export interface PredictedLabels {
  faultObject: string | null;
  rootCause: string | null;
}

export interface LabelScore {
  predicted: PredictedLabels;
  component: boolean;
  fault: boolean;
  joint: boolean;
}

const WORD = /[A-Za-z0-9_]/;
const NAME_CHAR = /[A-Za-z0-9-]/;
/**
 * What may follow a service's name inside a pod's name: a ReplicaSet's hash and the pod's id, a DaemonSet's id, or a
 * StatefulSet's ordinal. NOTE: Kubernetes draws generated ids from an alphabet without vowels (`bcdfghjklmnpqrstvwxz`
 * and `2456789`), so a word (`-extra`) is never one.
 */
const POD_SUFFIX = /^(?:-[a-z0-9]{8,10}-[bcdfghjklmnpqrstvwxz2456789]{5}|-[bcdfghjklmnpqrstvwxz2456789]{5}|-\d{1,3})?/;

function earliest<T>(hits: readonly { at: number; length: number; value: T }[]): T | null {
  const [best] = [...hits].sort((a, b) => a.at - b.at || b.length - a.length);
  return best?.value ?? null;
}

/** The labels a conclusion names (see the module's note). */
export function predictLabels(conclusion: string | null, candidates: LabelCandidates): PredictedLabels {
  if (conclusion === null) return { faultObject: null, rootCause: null };
  const lower = conclusion.toLowerCase();
  const labelHits: { at: number; length: number; value: string }[] = [];
  for (const label of candidates.labels) {
    const needle = label.toLowerCase();
    for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + 1)) {
      const before = lower[at - 1] ?? ' ';
      const after = lower[at + needle.length] ?? ' ';
      if (!WORD.test(before) && !WORD.test(after)) {
        labelHits.push({ at, length: needle.length, value: label });
        break;
      }
    }
  }
  const objectHits: { at: number; length: number; value: string }[] = [];
  for (const object of candidates.objects) {
    const name = object.slice(object.indexOf('/') + 1).toLowerCase();
    if (name === '') continue;
    for (let at = lower.indexOf(name); at !== -1; at = lower.indexOf(name, at + 1)) {
      const before = lower[at - 1] ?? ' ';
      const rest = lower.slice(at + name.length);
      const suffix = POD_SUFFIX.exec(rest)?.[0] ?? '';
      const after = rest[suffix.length] ?? ' ';
      if ((before === '/' || !NAME_CHAR.test(before)) && !NAME_CHAR.test(after)) {
        // NOTE: `app/x` written out starts the mention at its kind; a bare name at the name.
        const kindAt = lower.lastIndexOf(object.slice(0, object.indexOf('/') + 1).toLowerCase(), at);
        objectHits.push({ at: before === '/' && kindAt !== -1 ? kindAt : at, length: name.length, value: object });
        break;
      }
    }
  }
  return { faultObject: earliest(objectHits), rootCause: earliest(labelHits) };
}

/** The benchmark's three scores of one run's conclusion against the case's ground truth. */
export function scoreLabels(
  conclusion: string | null,
  candidates: LabelCandidates,
  truth: { faultObject: string; rootCause: string },
): LabelScore {
  const predicted = predictLabels(conclusion, candidates);
  const component = predicted.faultObject?.toLowerCase() === truth.faultObject.toLowerCase();
  const fault = predicted.rootCause?.toLowerCase() === truth.rootCause.toLowerCase();
  return { predicted, component, fault, joint: component && fault };
}
