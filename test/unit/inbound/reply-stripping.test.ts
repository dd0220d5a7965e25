import { extractSignature, stripHtml, stripText } from '../../../functions/inbound/reply-stripping';

// Reply shapes as the common mail programs write them.
describe('stripped-text and stripped-signature', () => {
  test('Gmail: "On <date> <name> wrote:" then > quoting', () => {
    const body = 'Thanks, that works.\r\n\r\nOn Mon, Jan 1, 2024 at 10:00 AM Bob Jones <bob@example.com> wrote:\r\n\r\n> Can you check the report?\r\n> Bob\r\n';
    expect(stripText(body)).toEqual({ text: 'Thanks, that works.', signature: '' });
  });

  test('Gmail with the attribution wrapped over two lines', () => {
    const body = 'Sure.\n\nOn Mon, Jan 1, 2024 at 10:00 AM Bob Jones <\nbob@example.com> wrote:\n\n> Lunch?\n';
    expect(stripText(body).text).toBe('Sure.');
  });

  test('Outlook: the underscore separator and From/Sent/To/Subject block', () => {
    const body = 'Yes please.\n\nThanks,\nAnn\n\n________________________________\nFrom: Bob <bob@example.com>\nSent: Monday, January 1, 2024 10:00 AM\nTo: Ann\nSubject: Hi\n\nOriginal\n';
    expect(stripText(body)).toEqual({ text: 'Yes please.', signature: 'Thanks,\nAnn' });
  });

  test('Outlook: -----Original Message----- with a dashed signature above it', () => {
    const body = 'Hi Bob,\n\nThe report is attached.\n\n--\nAnn Smith\nAcme Corp\n\n-----Original Message-----\nFrom: Bob [mailto:bob@example.com]\nSent: Monday\nTo: Ann\nSubject: Hi\n\nOriginal\n';
    expect(stripText(body)).toEqual({ text: 'Hi Bob,\n\nThe report is attached.', signature: '--\nAnn Smith\nAcme Corp' });
  });

  test('Apple Mail on iPhone: phone signature, then a quoted "On <date>, <name> wrote:"', () => {
    const body = 'Sounds good.\n\nSent from my iPhone\n\n> On Jan 1, 2024, at 10:00, Bob <bob@example.com> wrote:\n> \n> Original\n';
    expect(stripText(body)).toEqual({ text: 'Sounds good.', signature: 'Sent from my iPhone' });
  });

  test('a message with no quote and no signature is kept whole', () => {
    expect(stripText('Just one line')).toEqual({ text: 'Just one line', signature: '' });
    expect(stripText('')).toEqual({ text: '', signature: '' });
  });

  test('talon\'s brute-force signature rules: "Best regards," and a dashed line, never the first line', () => {
    expect(extractSignature('Hello\n\nBest regards,\nAnn')).toEqual({ text: 'Hello', signature: 'Best regards,\nAnn' });
    expect(extractSignature('-- not a signature on the first line')).toEqual({ text: '-- not a signature on the first line', signature: '' });
  });
});

describe('stripped-html', () => {
  test('Gmail: the gmail_quote div goes', () => {
    const html = '<div dir="ltr">Thanks!</div><br><div class="gmail_quote"><div class="gmail_attr">On Mon, Bob wrote:<br></div><blockquote class="gmail_quote">Original</blockquote></div>';
    expect(stripHtml(html)).toBe('<div dir="ltr">Thanks!</div><br>');
  });

  test('Apple Mail: blockquote type="cite" and what follows it go', () => {
    const html = '<html><body><div>Sounds good.</div><div><br><blockquote type="cite"><div>On Jan 1, Bob wrote:</div><div>Original</div></blockquote></div></body></html>';
    expect(stripHtml(html)).toBe('<html><body><div>Sounds good.</div><div><br></div></body></html>');
  });

  test("Outlook: from the reply separator (a top-bordered div starting From:) to the end", () => {
    const html =
      '<html><body><div class="WordSection1"><p class="MsoNormal">Yes please.</p><div><div style="border:none;border-top:solid #E1E1E1 1.0pt"><p><b>From:</b> Bob<br><b>Sent:</b> Monday</p></div></div><p class="MsoNormal">Original</p></div></body></html>';
    expect(stripHtml(html)).toBe('<html><body><div class="WordSection1"><p class="MsoNormal">Yes please.</p><div></div></div></body></html>');
  });

  test('Outlook on the web: divRplyFwdMsg', () => {
    const html = '<div>Yes please.</div><hr><div id="divRplyFwdMsg"><b>From:</b> Bob</div><div>Original</div>';
    expect(stripHtml(html)).toBe('<div>Yes please.</div><hr>');
  });

  test('HTML without a quote, or that is nothing but a quote, is kept as it is', () => {
    expect(stripHtml('<p>Hello</p>')).toBe('<p>Hello</p>');
    const onlyQuote = '<blockquote type="cite">Forwarded text</blockquote>';
    expect(stripHtml(onlyQuote)).toBe(onlyQuote);
  });
});
