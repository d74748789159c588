/** The Luhn check of a bank card number (digits only, 13–19 of them). */
export function passesLuhn(digits: string): boolean {
  if (!/^[0-9]{13,19}$/.test(digits)) return false;
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

const RESIDENT_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const RESIDENT_ID_CHECK = '10X98765432';

/** The ISO 7064 MOD 11-2 check digit of an 18-character Chinese resident identity card number (GB 11643-1999). */
export function passesResidentIdChecksum(id: string): boolean {
  if (!/^[0-9]{17}[0-9Xx]$/.test(id)) return false;
  let sum = 0;
  for (let index = 0; index < 17; index += 1) sum += (id.charCodeAt(index) - 48) * (RESIDENT_ID_WEIGHTS[index] ?? 0);
  return RESIDENT_ID_CHECK[sum % 11] === id[17]?.toUpperCase();
}
