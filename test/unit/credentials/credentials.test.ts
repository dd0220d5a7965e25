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

it("keeps passwords within Mailgun's 5 to 32 characters, without control characters", () => {
  expect(() => checkPassword('12345')).not.toThrow();
  expect(() => checkPassword('x'.repeat(32))).not.toThrow();
  expect(() => checkPassword('1234')).toThrow('Password is too short. It must be between 5 and 32 characters.');
  expect(() => checkPassword('x'.repeat(33))).toThrow('Password is too long. It must be between 5 and 32 characters.');
  expect(() => checkPassword('abc\u0000def')).toThrow('Password must not contain control characters');
});

it('generates passwords that pass its own rules and differ every time', () => {
  const passwords = Array.from({ length: 50 }, generatePassword);
  for (const password of passwords) expect(() => checkPassword(password)).not.toThrow();
  expect(new Set(passwords).size).toBe(50);
});
