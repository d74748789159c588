/**
 * Port: the Slack cards of runs, the channels' post slots, and the one-time claims of Slack requests. Its DynamoDB
 * adapter (`dynamo-card-store.ts`) and in-memory twin (`memory-card-store.ts`) are held to one contract suite
 * (test/contract/card-store-contract.ts); the items are `card-items.ts`'s.
 * NOTE: the card is a state machine (docs/chat.md, "The card's states"): every step that calls Slack for a card first
 * takes the card's lease by a conditional write, so at most one Slack call is in flight for a card at any time and
 * its answer is recorded before the next call starts — whatever the stream and the queue deliver twice, late or at
 * once. A lease ends with its holder's record, or by itself at `leaseUntil` (an invocation that died).
 */

export const CARD_FACES = Object.freeze(['NONE', 'STARTED', 'PROGRESS', 'FINAL'] as const);
/** What the card's message shows: nothing yet (not posted), the started card, a progress card, the result. */
export type CardFace = (typeof CARD_FACES)[number];

export interface SlackCard {
  runId: string;
  appId: string;
  teamId: string;
  channelId: string;
  enterpriseId: string;
  sessionId: string;
  /** The card's own message; null until it is posted. */
  ts: string | null;
  /** The thread the card is in (a follow-up's root card); null for a card at the channel's top level. */
  threadTs: string | null;
  /** What the card says of its run while it works (the started card's subject). */
  query: string;
  startedBy: string;
  /** The Slack user who asked (a mention or `/diagnose`); null for an alarm's card and cards kept before it was. */
  requesterId: string | null;
  followUp: boolean;
  /** What the message shows now. */
  face: CardFace;
  /** The rating count the shown result carries. */
  faceRatings: number;
  /** The details reply is in the card's thread (or the result has none). */
  detailsPosted: boolean;
  ratings: number;
  /** When the last update was started (ms): progress updates keep an interval from it. */
  lastUpdateAt: number;
  /** A 429's `Retry-After`, as an instant (ms): no call for this card before it. */
  blockedUntil: number;
  /** A Slack call for this card is in flight until then (ms; 0: none). */
  leaseUntil: number;
  /** The card's write count: a lease is taken only on the version it was decided from. */
  version: number;
}

/** The run a posted card is, as a click or a thread reply finds it. */
export interface CardMessageRef {
  runId: string;
  enterpriseId: string;
  sessionId: string;
  appId: string;
  channelId: string;
  /** The thread root of the card (itself for a top-level card). */
  rootTs: string;
}

export type NewSlackCard = Pick<
  SlackCard,
  | 'runId'
  | 'appId'
  | 'teamId'
  | 'channelId'
  | 'enterpriseId'
  | 'sessionId'
  | 'threadTs'
  | 'query'
  | 'startedBy'
  | 'requesterId'
  | 'followUp'
>;

/**
 * Why a lease is taken: to post the card (`post`: not posted yet), to draw progress (`progress`: posted, not showing
 * the result, the last update `minIntervalMs` old), or to bring the result up to date (`result`: posted, and the
 * result, its rating count or its details are not all there yet).
 */
export type LeasePurpose = 'post' | 'progress' | 'result';

/** A held lease: the card as it was when taken (what the holder decides from), its id and its end. */
export interface CardLease {
  runId: string;
  id: string;
  until: number;
  card: SlackCard;
}

/** Port: the cards. */
export interface CardStore {
  /** Creates the run's card, its `post` lease taken; null when the run has one already. */
  claimCard(card: NewSlackCard, nowMs: number, leaseMs: number): Promise<CardLease | null>;
  getCard(runId: string): Promise<SlackCard | null>;
  /**
   * Takes the card's lease for `purpose` when `leaseAllows` says so on `card` and the card is still that version (one
   * conditional write; nothing is written when it does not allow it); `progress` and `result` also start the update
   * interval. Null: not taken.
   */
  takeLease(
    card: SlackCard,
    purpose: LeasePurpose,
    nowMs: number,
    leaseMs: number,
    minIntervalMs: number,
  ): Promise<CardLease | null>;
  /** The card was posted as `ts`: recorded (showing STARTED), its message made findable, the lease ended. */
  recordPosted(lease: CardLease, ts: string, nowMs: number): Promise<void>;
  /** The card shows `face` (with `ratings` for a result); the lease kept for a next call when `keep` is set. */
  recordDrawn(lease: CardLease, face: CardFace, ratings: number, keep: boolean): Promise<void>;
  /** The details reply is in the thread; the lease ended. */
  recordDetailsPosted(lease: CardLease): Promise<void>;
  /** Ends the lease without a change (a failed call); a 429 also blocks the card until `blockedUntil`. */
  releaseLease(lease: CardLease, blockedUntil?: number): Promise<void>;
  findByMessage(appId: string, channelId: string, ts: string): Promise<CardMessageRef | null>;
  /** One more rating; the new count (0 when the run has no card). */
  addRating(runId: string): Promise<number>;
  /**
   * Reserves the channel's next `chat.postMessage` slot (one every `intervalMs`): the instant this post may go, now
   * or later. NOTE: reserved for good; a slot not used only delays the channel's next post.
   */
  reservePost(appId: string, channelId: string, nowMs: number, intervalMs: number): Promise<number>;
  /** Claims `key` once until `expiresAt` (ms): false when it is held. */
  claimOnce(key: string, nowMs: number, expiresAt: number): Promise<boolean>;
}

/**
 * Whether a lease for `purpose` may be taken on `card` at `nowMs` (the throttle, read before anything is written):
 * no lease held, no 429 blocking, and the purpose's own condition.
 */
export function leaseAllows(card: SlackCard, purpose: LeasePurpose, nowMs: number, minIntervalMs: number): boolean {
  if (card.leaseUntil > nowMs || card.blockedUntil > nowMs) return false;
  if (purpose === 'post') return card.ts === null;
  if (card.ts === null) return false;
  if (purpose === 'progress') return card.face !== 'FINAL' && card.lastUpdateAt <= nowMs - minIntervalMs;
  return resultPending(card);
}

/** The result, its rating count or its details are not all on the card yet (once the run has ended). */
export const resultPending = (card: SlackCard) =>
  card.face !== 'FINAL' || card.faceRatings !== card.ratings || !card.detailsPosted;

/** The store a lease's records must match: the lease still held by its id (a lease that ended is no one's). */
export class CardLeaseLostError extends Error {
  override name = 'CardLeaseLostError';
  readonly code = 'CARD_LEASE_LOST';
  constructor() {
    super('the card lease is no longer held');
  }
}
