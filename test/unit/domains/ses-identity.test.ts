import {
  AlreadyExistsException,
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  NotFoundException,
  PutEmailIdentityDkimSigningAttributesCommand,
  PutEmailIdentityMailFromAttributesCommand,
  SESv2Client,
} from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { deleteIdentity, identityStatus, registerIdentity } from '../../../functions/domains/ses-identity';
import { withEnv } from '../../../functions/platform/env';

const ses = mockClient(SESv2Client);
const env = { TABLE_NAME: 't', AWS_REGION: 'eu-west-1' };
const run = <T>(fn: () => Promise<T>) => withEnv(env, fn);

beforeEach(() => {
  ses.reset();
  ses.on(PutEmailIdentityMailFromAttributesCommand).resolves({});
});

it('creates the identity with our DKIM key (BYODKIM) and sets the custom MAIL FROM', async () => {
  ses.on(CreateEmailIdentityCommand).resolves({ DkimAttributes: { Tokens: [] } });
  const tokens = await run(() => registerIdentity('mg.example.com', 'bounce.mg.example.com', { kind: 'byodkim', selector: 's1', privateKeyBase64: 'AAAA' }));
  expect(tokens).toBeUndefined();
  expect(ses.commandCalls(CreateEmailIdentityCommand)[0]!.args[0].input).toEqual({
    EmailIdentity: 'mg.example.com',
    DkimSigningAttributes: { DomainSigningSelector: 's1', DomainSigningPrivateKey: 'AAAA' },
  });
  expect(ses.commandCalls(PutEmailIdentityMailFromAttributesCommand)[0]!.args[0].input).toEqual({
    EmailIdentity: 'mg.example.com',
    MailFromDomain: 'bounce.mg.example.com',
    BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
  });
});

it('takes over an identity that already exists by setting its signing attributes', async () => {
  ses.on(CreateEmailIdentityCommand).rejects(new AlreadyExistsException({ message: 'exists', $metadata: {} }));
  ses.on(PutEmailIdentityDkimSigningAttributesCommand).resolves({ DkimTokens: ['t1', 't2', 't3'] });
  const tokens = await run(() => registerIdentity('mg.example.com', 'bounce.mg.example.com', { kind: 'ses' }));
  expect(tokens).toEqual(['t1', 't2', 't3']);
  expect(ses.commandCalls(PutEmailIdentityDkimSigningAttributesCommand)[0]!.args[0].input).toEqual({
    EmailIdentity: 'mg.example.com',
    SigningAttributesOrigin: 'AWS_SES',
    SigningAttributes: undefined,
  });
});

it('reports SES’s verification, or nothing when SES has no identity', async () => {
  ses.on(GetEmailIdentityCommand, { EmailIdentity: 'ok.example.com' }).resolves({
    VerifiedForSendingStatus: true,
    DkimAttributes: { Status: 'SUCCESS' },
    MailFromAttributes: { MailFromDomain: 'b.ok.example.com', MailFromDomainStatus: 'PENDING', BehaviorOnMxFailure: 'USE_DEFAULT_VALUE' },
  });
  ses.on(GetEmailIdentityCommand, { EmailIdentity: 'gone.example.com' }).rejects(new NotFoundException({ message: 'no', $metadata: {} }));
  await expect(run(() => identityStatus('ok.example.com'))).resolves.toEqual({ verifiedForSending: true, dkimStatus: 'SUCCESS', mailFromStatus: 'PENDING' });
  await expect(run(() => identityStatus('gone.example.com'))).resolves.toBeUndefined();
});

it('deletes idempotently but surfaces other failures', async () => {
  ses.on(DeleteEmailIdentityCommand, { EmailIdentity: 'gone.example.com' }).rejects(new NotFoundException({ message: 'no', $metadata: {} }));
  ses.on(DeleteEmailIdentityCommand, { EmailIdentity: 'boom.example.com' }).rejects(new Error('AccessDenied'));
  await expect(run(() => deleteIdentity('gone.example.com'))).resolves.toBeUndefined();
  await expect(run(() => deleteIdentity('boom.example.com'))).rejects.toThrow('AccessDenied');
});
