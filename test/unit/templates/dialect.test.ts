import { validate } from '../../../functions/platform/http/params';
import { templateProblem } from '../../../functions/templates/handlebars-dialect';
import { copyVersionInput, createTemplateInput, createVersionInput } from '../../../functions/templates/schemas';

// What may be stored: Mailgun's Handlebars dialect, names, tags and headers.
describe('templateProblem', () => {
  it('accepts what Mailgun renders', () => {
    for (const source of [
      '<p>{{name}} {{{raw}}}</p>',
      '{{#if a}}x{{else if b}}y{{else}}z{{/if}}',
      '{{#each list}}{{@index}} {{this}}{{/each}}{{#with o}}{{k}}{{/with}}{{#unless u}}n{{/unless}}',
      '{{#equal a "b"}}same{{else}}different{{/equal}} {{lookup map key}} {{#section}}mustache-style{{/section}}',
      '{{!-- a comment --}}{{! another }}',
    ]) {
      expect([source, templateProblem(source)]).toEqual([source, undefined]);
    }
  });

  it.each([
    ['{{#if a}}open', 'Parse error on line 1: unexpected end of template'],
    ['{{#if a}}x{{/each}}', "if doesn't match each - 1:3"],
    ['{{upper name}}', 'unknown helper upper: templates may use if, unless, each, with, lookup and equal'],
    ['{{log "x"}}', 'unknown helper log: templates may use if, unless, each, with, lookup and equal'],
    ['{{> footer}}', 'partials are not supported'],
    ['{{#> layout}}x{{/layout}}', 'partials are not supported'],
    ['{{#*inline "p"}}x{{/inline}}', 'decorators and inline partials are not supported'],
  ])('refuses %s', (source, problem) => {
    expect(templateProblem(source)).toBe(problem);
  });
});

describe('input schemas', () => {
  const base = { domain: 'MG.Example.com', name: 'welcome' };

  it('lower-cases names and tags, in any script', () => {
    expect(validate(createTemplateInput(), { domain: 'MG.Example.com', name: 'Bienvenue.Été_2026~v-1' })).toMatchObject({ domain: 'mg.example.com', name: 'bienvenue.été_2026~v-1' });
    expect(validate(createVersionInput(), { ...base, template: 'x', tag: 'V2' })).toMatchObject({ tag: 'v2' });
    expect(validate(copyVersionInput(), { ...base, tag: 'V2', new_tag: 'Copy' })).toMatchObject({ tag: 'v2', new_tag: 'copy' });
  });

  it('treats blank fields as absent', () => {
    expect(validate(createTemplateInput(), { domain: 'd.com', name: 'n', description: '', template: ' ', tag: '' })).toEqual({ domain: 'd.com', name: 'n' });
  });

  it('keeps From, Subject and Reply-To in their canonical spelling, from a JSON string or object', () => {
    const headers = (value: unknown) => validate(createVersionInput(), { ...base, template: 'x', tag: 't', headers: value }).headers;
    expect(headers('{"from":"a@x.com","SUBJECT":" Hi {{n}} ","reply-to":"r@x.com"}')).toEqual({ From: 'a@x.com', Subject: 'Hi {{n}}', 'Reply-To': 'r@x.com' });
    expect(headers({ Subject: 'S', From: '' })).toEqual({ Subject: 'S' });
    expect(headers('{}')).toEqual({});
  });

  it.each([
    [{ 'X-Tag': 'a' }, 'only From, Subject and Reply-To are supported, not X-Tag'],
    [{ Subject: 7 }, 'the value of Subject must be a string'],
    [{ From: 'a\nb' }, 'the value of From must be a single line'],
    [{ Subject: 'x'.repeat(999) }, 'the value of Subject must be at most 998 characters'],
    [{ Subject: '{{#if a}}' }, 'Parse error on line 1: unexpected end of template'],
    [['From'], 'must be a JSON object'],
  ])('refuses headers %j', (value, problem) => {
    expect(() => validate(createVersionInput(), { ...base, template: 'x', tag: 't', headers: JSON.stringify(value) })).toThrow(`Invalid parameter 'headers': ${problem}`);
  });
});
