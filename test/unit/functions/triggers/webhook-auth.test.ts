import { describe, expect, it } from 'vitest';
import { isJsonContentType } from '../../../../functions/triggers/webhook-auth.ts';

describe('isJsonContentType', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON; Charset=UTF-8',
    'application/json;charset="utf-8"',
    'application/json ; charset=utf8',
  ])('accepts %s (what Alertmanager and PagerDuty send, any case)', (type) => {
    expect(isJsonContentType(type)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonp',
    'application/json-seq',
    'text/json',
    'application/json; charset=iso-8859-1',
    'application/json; charset=utf-16',
    'text/html, application/json',
    `application/json; ${'x'.repeat(300)}`,
  ])('refuses %s', (type) => {
    expect(isJsonContentType(type)).toBe(false);
  });
});
