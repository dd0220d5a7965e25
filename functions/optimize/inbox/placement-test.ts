import { withinMonthlyLimit } from '../../accounts/monthly-limit';
import { deleteIfPresent, putItem } from '../../data/store';
import { sendingDomain } from '../../messages/accept';
import { acceptCopy, copyContext, type Copy, type MessagePlan } from '../../messages/copies';
import { parseMailboxes } from '../../messages/recipients';
import { readSendParams } from '../../messages/send-params';
import { messageContent } from '../../messages/template-content';
import { mapLimit } from '../../platform/concurrency';
import { BadRequest } from '../../platform/errors';
import { messageId as newMessageId, objectId } from '../../platform/ids';
import { sendingChoiceOf } from '../../sending-ips/sending-options';
import { chooseSeeds, configuredSeeds, createSeedList, mailingList, requireSeedList, type SeedListItem } from './seed-lists';
import type { SeedMailboxItem } from './seed-mailboxes';
import { createResult, deleteResult, keptBody, newResult } from './results';
import { resultStarted, placementSendKeys, type PlacementSend } from './target-mail';

/**
 * POST /v4/inbox/tests: one placement test sent through the platform's own pipeline (accepted,
 * stored, queued and sent as any message, with its events), one copy per seed with that seed's
 * `%recipient.first_name%` and `%recipient.last_name%`, and one to the seed list's target. All
 * copies share one Message-ID, as a Mailgun batch send does: each seed is searched for that id,
 * and the copy reaching the target adds what only it tells (the sending IP, the content score).
 */
export interface PlacementTestInput {
  from: string;
  subject: string;
  html?: string;
  template_name?: string;
  account_template_name?: string;
  variables?: Record<string, unknown>;
  headers?: Record<string, string>;
  seed_list?: string;
  provider_filter?: string[];
  sending_ip?: string;
  sending_ip_pool_id?: string;
  max_seeds_per_provider?: number;
}

/** The seed list the test goes to: the one named, or one made for this test from every configured seed. */
async function listFor(accountId: string, input: PlacementTestInput): Promise<SeedListItem> {
  if (input.seed_list) return requireSeedList(accountId, input.seed_list);
  return createSeedList(accountId, { name: `Placement test ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`, remoteId: '', seedFilter: '', providerFilter: input.provider_filter ?? [], maxSeedsPerProvider: input.max_seeds_per_provider ?? 0 });
}

function seedsOf(list: SeedListItem, configured: readonly SeedMailboxItem[], input: PlacementTestInput): SeedMailboxItem[] {
  const onList = new Set(list.seeds);
  const seeds = chooseSeeds(configured.filter((s) => onList.has(s.email)), { seedFilter: '', providerFilter: input.provider_filter ?? [], maxSeedsPerProvider: input.max_seeds_per_provider ?? 0 }, false);
  if (!seeds.length) throw new BadRequest('no seed of the seed list matches provider_filter');
  return seeds;
}

export async function runPlacementTest(accountId: string, input: PlacementTestInput): Promise<{ resultId: string; list: SeedListItem; seeds: SeedMailboxItem[] }> {
  if (input.account_template_name) throw new BadRequest('account templates do not exist on this platform: give html, or template_name (a template of the sending domain)');
  if (!input.html && !input.template_name) throw new BadRequest("Need 'html' or 'template_name'");
  const configured = await configuredSeeds();
  const from = parseMailboxes('from', [input.from]);
  if (from.length !== 1) throw new BadRequest("'from' parameter must be exactly one address");
  const domain = await sendingDomain(accountId, from[0]!.address.split('@')[1] ?? '');
  // The same form a send takes, so a template renders exactly as it would for POST /messages.
  const form: Record<string, unknown> = {
    from: input.from,
    subject: input.subject,
    ...(input.html ? { html: input.html } : {}),
    ...(input.template_name ? { template: input.template_name, 't:variables': JSON.stringify(input.variables ?? {}) } : {}),
    ...Object.fromEntries(Object.entries(input.headers ?? {}).map(([name, value]) => [`h:${name}`, value])),
  };
  const params = readSendParams(form, []);
  const content = await messageContent(accountId, domain.name, params, form);
  if (!content.html && !content.text) throw new BadRequest('the template renders no content');
  const sending = await sendingChoiceOf(accountId, input.sending_ip, input.sending_ip_pool_id);
  const list = await listFor(accountId, input);
  const seeds = seedsOf(list, configured, input);
  const plan: MessagePlan = {
    accountId,
    messageId: newMessageId(domain.name),
    sender: input.from,
    from: from[0]!,
    content,
    attachments: [],
    inline: [],
    tags: [],
    variables: {},
    testMode: false,
    sending,
    tracking: params.tracking,
    // Seeds and the target are the platform's own addresses: a sandbox domain may test placement too.
    purpose: 'placement-test',
  };
  const result = newResult(
    { accountId, id: objectId(), targetEmail: list.targetEmail, seedlistId: list.id, seedlistName: list.name, sender: from[0]!.address, subject: input.subject, messageId: plan.messageId, originatingIp: '', spamassassin: null, body: keptBody(content) },
    seeds,
  );
  const send: PlacementSend = { accountId, resultId: result.id, targetEmail: list.targetEmail, seeds: seeds.map((s) => ({ email: s.email, provider: s.provider })), resultOpened: true };
  // Recorded before anything is sent: the target's copy may arrive before this request ends.
  await putItem(placementSendKeys.placementSend(plan.messageId), send);
  const copies: Copy[] = [
    { to: [{ name: '', address: list.targetEmail }], cc: [], all: [list.targetEmail], values: {} },
    ...seeds.map((seed) => ({ to: [{ name: [seed.firstName, seed.lastName].filter(Boolean).join(' '), address: seed.email }], cc: [], all: [seed.email], values: { first_name: seed.firstName, last_name: seed.lastName } })),
  ];
  // The result exists before any copy goes: its link answers as soon as the reply is out, and the
  // target's copy has a result to add to. It is polled from the start, so a test whose copies
  // never arrive still ends, with those seeds missing at the deadline.
  await createResult(result);
  try {
    await withinMonthlyLimit(accountId, domain.name, copies.length, async () => {
      const context = copyContext(plan, domain, true);
      await mapLimit(copies, 16, (copy) => acceptCopy(context, copy));
    });
  } catch (error) {
    // Refused (the monthly limit, say): the test leaves nothing behind.
    await deleteResult(result);
    await deleteIfPresent(placementSendKeys.placementSend(plan.messageId));
    throw error;
  }
  await resultStarted(result, list);
  return { resultId: result.id, list, seeds };
}

export const testMailingList = (list: SeedListItem, seeds: readonly SeedMailboxItem[]) => mailingList({ targetEmail: list.targetEmail, seeds: seeds.map((s) => s.email) });
