import { checkPassword, generatePassword, loginAddress } from '../../../functions/credentials/credentials';

it('stores a login as the full address in lower case, from a local part or an address at the domain', () => {
  expect(loginAddress('example.com', 'Alice')).toBe('alice@example.com');
  expect(loginAddress('example.com', ' Alice@Example.COM ')).toBe('alice@example.com');
  expect(loginAddress('example.com', "o'brien+smtp")).toBe("o'brien+smtp@example.com");
  for (const bad of ['', 'a b', '.dot', 'dot.', 'a..b', 'x'.repeat(65), '"quoted"', 'a@b@example.com']) {
    expect(() => loginAddress('example.com', bad)).toThrow(/Invalid parameter 'login'/);
  }
  expect(() => loginAddress('example.com', 'a@sub.example.com')).toThrow("Invalid parameter 'login': a@sub.example.com is not an address of the domain example.com");
});

it('asks new passwords for 15 to 32 characters, counted as code points, without control characters, and says the rule', () => {
  const rule = 'It must be between 15 and 32 characters (an SMTP password is a single factor: NIST SP 800-63B-4 asks at least 15).';
  expect(() => checkPassword('x'.repeat(15))).not.toThrow();
  expect(() => checkPassword('x'.repeat(32))).not.toThrow();
  expect(() => checkPassword('x'.repeat(14))).toThrow(`Password is too short. ${rule}`);
  expect(() => checkPassword('x'.repeat(33))).toThrow(`Password is too long. ${rule}`);
  // 15 emoji are 15 characters (30 UTF-16 units), so neither too short nor too long.
  expect(() => checkPassword('\u{1F511}'.repeat(15))).not.toThrow();
  expect(() => checkPassword('abc\u0000def-long-enough')).toThrow('Password must not contain control characters');
});

it('generates passwords that pass its own rules and differ every time', () => {
  const passwords = Array.from({ length: 50 }, generatePassword);
  for (const password of passwords) expect(() => checkPassword(password)).not.toThrow();
  expect(new Set(passwords).size).toBe(50);
});
