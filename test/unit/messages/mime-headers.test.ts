import { mimeHeaders } from '../../../functions/messages/mime-headers';

it('reads the fields acceptance needs, unfolded and with encoded-words decoded', () => {
  const mime = Buffer.from(
    [
      'From: =?UTF-8?B?SsO8cmdlbg==?= <j@example.com>',
      'To: a@example.com,',
      ' b@example.com',
      'Subject: =?iso-8859-1?Q?Gr=FC=DFe?= =?UTF-8?Q?_und_=E2=9C=89?=',
      'Message-ID: <abc@example.com>',
      '',
      'Subject: not a header, the body',
    ].join('\r\n'),
  );
  expect(mimeHeaders(mime)).toEqual({ messageId: '<abc@example.com>', from: 'Jürgen <j@example.com>', to: 'a@example.com, b@example.com', subject: 'Grüße und ✉' });
});

it('leaves unknown charsets as written and copes with a message without id', () => {
  expect(mimeHeaders(Buffer.from('Subject: =?koi8-r?B?8NLJ?=\n\nbody'))).toEqual({ messageId: undefined, from: '', to: '', subject: '=?koi8-r?B?8NLJ?=' });
});
