import { z } from 'zod/v3';
import { flag, integer, list, text, validate } from '../../../functions/platform/http/params';

describe('flag', () => {
  it.each([
    ['yes', true], ['YES', true], ['true', true], ['True', true], [true, true],
    ['no', false], ['false', false], ['FALSE', false], [false, false],
  ])('reads %p as %p', (input, expected) => {
    expect(validate(z.object({ f: flag() }), { f: input })).toEqual({ f: expected });
  });

  it('refuses other words, naming the parameter', () => {
    expect(() => validate(z.object({ 'o:dkim': flag() }), { 'o:dkim': 'maybe' })).toThrow(
      "Invalid parameter 'o:dkim': must be one of yes, no, true or false",
    );
  });
});

describe('integer, text and list', () => {
  it('reads decimal strings and keeps the last of repeated values', () => {
    expect(validate(z.object({ n: integer(), s: text() }), { n: ['1', '25'], s: ['a', 'b'] })).toEqual({ n: 25, s: 'b' });
  });

  it('refuses non-integers', () => {
    expect(() => validate(z.object({ limit: integer() }), { limit: '1.5' })).toThrow("Invalid parameter 'limit': must be an integer");
  });

  it('refuses integers too far from zero to be exact, however they are written', () => {
    for (const limit of ['99999999999999999999', 1e308, '-9007199254740993']) {
      expect(() => validate(z.object({ limit: integer() }), { limit })).toThrow("Invalid parameter 'limit': is out of range");
    }
    expect(validate(z.object({ limit: integer() }), { limit: String(Number.MAX_SAFE_INTEGER) })).toEqual({ limit: Number.MAX_SAFE_INTEGER });
  });

  it('flattens repeated and comma-separated values', () => {
    expect(validate(z.object({ to: list() }), { to: ['a@x.com, b@x.com', 'c@x.com'] })).toEqual({ to: ['a@x.com', 'b@x.com', 'c@x.com'] });
  });

  it('says missing for absent or blank required values, and invalid otherwise', () => {
    const schema = z.object({ name: text(), size: integer() });
    expect(() => validate(schema, { size: 1 })).toThrow("Missing parameter 'name'");
    expect(() => validate(schema, { name: '  ', size: 1 })).toThrow("Missing parameter 'name'");
    expect(() => validate(schema, { name: 'x', size: 'big' })).toThrow("Invalid parameter 'size': must be an integer");
  });
});
