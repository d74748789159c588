/**
 * What a run costs, from a price per million tokens (USD). The default is DeepSeek's published API list price for
 * deepseek-chat as of September 2025 (cache-hit input $0.028, cache-miss input $0.28, output $0.42 per million
 * tokens); set EVAL_PRICE for your model and contract.
 */
export interface Price {
  /** USD per million input tokens served from the provider's cache. */
  cachedInput: number;
  /** USD per million other input tokens. */
  input: number;
  /** USD per million output tokens (reasoning included). */
  output: number;
}

export const DEFAULT_PRICE: Price = Object.freeze({ cachedInput: 0.028, input: 0.28, output: 0.42 });

/** Parses `input=0.28,cached=0.028,output=0.42` (USD per million tokens); missing keys keep the default's value. */
export function parsePrice(text: string | undefined): Price {
  if (text === undefined || text.trim() === '') return DEFAULT_PRICE;
  const price = { ...DEFAULT_PRICE };
  for (const part of text.split(',')) {
    const match = /^\s*(input|cached|output)\s*=\s*(\d{1,6}(?:\.\d{1,9})?)\s*$/.exec(part);
    if (match === null) throw new PriceError();
    const value = Number(match[2]);
    if (match[1] === 'input') price.input = value;
    else if (match[1] === 'cached') price.cachedInput = value;
    else price.output = value;
  }
  return price;
}

export class PriceError extends Error {
  constructor() {
    super('EVAL_PRICE / --price must look like input=0.28,cached=0.028,output=0.42 (USD per million tokens)');
    this.name = 'PriceError';
  }
}

export function priceOf(
  usage: { inputTokens: number; cachedInputTokens: number; outputTokens: number },
  price: Price,
): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  return (
    ((usage.inputTokens - cached) * price.input + cached * price.cachedInput + usage.outputTokens * price.output) / 1e6
  );
}
