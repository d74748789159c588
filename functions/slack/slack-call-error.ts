/** A Slack call failed (not a 429): the code is Slack's error word or the client's class, never a body. */
export class SlackCallError extends Error {
  override name = 'SlackCallError';
  readonly code: string;
  constructor(code: string) {
    super(`Slack call failed: ${code}`);
    this.code = code;
  }
}
