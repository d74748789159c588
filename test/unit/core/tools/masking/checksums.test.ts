import { describe, expect, it } from 'vitest';
import { passesLuhn, passesResidentIdChecksum } from '../../../../../packages/core/src/tools/masking/checksums.ts';

// Each check is compared with an oracle written another way (a doubling table for Luhn, Horner's rule for ISO 7064
// MOD 11-2), over every check character of several bodies, so an arithmetic change cannot agree by chance. The
// malformed inputs are chosen so that the arithmetic alone would accept them: only the shape check refuses them.
// Every number here is synthetic.

const DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];
/** Luhn by the doubling table, from the right: true when the weighted sum ends in 0. */
function luhnOracle(digits: string): boolean {
  let sum = 0;
  [...digits].reverse().forEach((character, position) => {
    const digit = Number(character);
    sum += position % 2 === 1 ? (DOUBLED[digit] ?? Number.NaN) : digit;
  });
  return sum % 10 === 0;
}

/** The ISO 7064 MOD 11-2 check character of 17 digits by Horner's rule (weights 2^(17-i) mod 11). */
function residentCheckOracle(body: string): string {
  let remainder = 0;
  for (const character of body) remainder = ((remainder + Number(character)) * 2) % 11;
  const check = (12 - remainder) % 11;
  return check === 10 ? 'X' : String(check);
}

describe('passesLuhn', () => {
  it.each([
    ['13 digits', '411111111111'],
    ['16 digits', '555555555555444'],
    ['16 digits with doubled digits over 4', '453957876362148'],
    ['19 digits', '622202123456789012'],
  ])('accepts exactly the one check digit the oracle accepts (%s)', (_label, body) => {
    const accepted = [...'0123456789'].filter((check) => passesLuhn(`${body}${check}`));
    expect(accepted).toEqual([...'0123456789'].filter((check) => luhnOracle(`${body}${check}`)));
    expect(accepted).toHaveLength(1);
  });

  it('refuses every single changed digit of a valid number', () => {
    const valid = '6222021234567890128';
    expect(passesLuhn(valid)).toBe(true);
    for (let position = 0; position < valid.length; position += 1) {
      for (const digit of '0123456789') {
        if (digit === valid[position]) continue;
        expect(passesLuhn(`${valid.slice(0, position)}${digit}${valid.slice(position + 1)}`)).toBe(false);
      }
    }
  });

  it.each([
    ['12 digits', '411111111117'],
    ['20 digits', '41111111111111111115'],
    // ':' counts 10 at an undoubled place: the digits' sum alone would pass.
    ['a character before the digits', ':4111111111111111'],
    ['a character after the digits', '41111111111111110:'],
    ['separators', '4111 1111 1111 1111'],
    ['nothing', ''],
  ])('refuses a Luhn-valid sum with %s', (_label, text) => {
    expect(passesLuhn(text)).toBe(false);
  });
});

describe('passesResidentIdChecksum', () => {
  it.each(['11010519491231002', '11010519800101001', '44030419900307123', '11010519491231003', '32010219881130457'])(
    'accepts exactly the check character the oracle computes for %s',
    (body) => {
      const accepted = [...'0123456789X'].filter((check) => passesResidentIdChecksum(`${body}${check}`));
      expect(accepted).toEqual([residentCheckOracle(body)]);
    },
  );

  it('accepts a lower-case x where the check is X', () => {
    expect(residentCheckOracle('11010519491231002')).toBe('X');
    expect(passesResidentIdChecksum('11010519491231002x')).toBe(true);
  });

  it.each([
    ['17 characters', '11010519491231002'],
    ['19 digits', '1101051949123100380'],
    // The weighted sum of its first 17 characters (':' counts 10) matches its 18th: only the shape refuses it.
    ['a character before a valid id', ':110105199001234567'],
    ['a character after a valid id', '110105198001010016Z'],
    ['a letter other than X as the check', '11010519491231002Y'],
    ['a letter among the digits', '1101051949123100A8'],
  ])('refuses %s', (_label, text) => {
    expect(passesResidentIdChecksum(text)).toBe(false);
  });
});
