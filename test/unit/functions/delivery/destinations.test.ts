import { describe, expect, it } from 'vitest';
import { parseStageDelivery } from '../../../../functions/delivery/destinations.ts';

describe('parseStageDelivery', () => {
  it('reads an absent section as no destinations, and no enterprise revealing customer data', () => {
    expect(parseStageDelivery(undefined)).toEqual({ destinations: {}, reveal: {} });
  });

  it.each([
    ['a secret named like another resource', { E1001: [{ id: 'a', type: 'slack', secret: 'ModelApiKey' }] }],
    [
      'a webhook over plain http',
      { E1001: [{ id: 'a', type: 'webhook', url: 'http://x.example', secret: 'DestinationA' }] },
    ],
    [
      'credentials in a webhook URL',
      { E1001: [{ id: 'a', type: 'webhook', url: 'https://u:p@x.example', secret: 'DestinationA' }] },
    ],
    ['a lower-case enterprise id', { e1001: [{ id: 'a', type: 'sns' }] }],
    ['an unknown field', { E1001: [{ id: 'a', type: 'sns', url: 'https://x.example' }] }],
  ])('refuses %s (null: the caller names the file, never a value)', (_what, destinations) => {
    expect(parseStageDelivery({ destinations })).toBeNull();
  });
});
