import { isPlatformMailEvent, type RecordedEvent } from '../events/event-store';
import { mapLimit } from '../platform/concurrency';
import { env } from '../platform/env';
import { createTag, getTag, normaliseTag, releasePlace, reservePlace, widenSightings, type TagScope } from './tag-store';

/**
 * Keeps the tag registry in step with recorded events; the event stream calls it with each batch
 * of new events (functions/event-stream). Every tag an event carries is registered for its
 * account and for its domain: first and last sighting widen to cover the event, the description
 * is left alone, and a tag seen for the first time takes one place under the limit.
 *
 * Limits (Mailgun: 100,000 distinct tags per account, 20,000 per domain by default; settings
 * TAG_LIMIT_ACCOUNT and TAG_LIMIT_DOMAIN). At the limit a new tag is not registered: the message
 * is still accepted and its events keep the tag (Mailgun documents tags as "created on the fly but
 * subject to a limit", not as a send error). The two registries are independent, as Mailgun's are:
 * a tag refused by a full domain can still be listed account-wide, and the reverse.
 *
 * Retries: the stream delivers at least once. A known tag only ever widens its sightings, so a
 * replayed batch changes nothing; a new tag reserves its place before it is created and gives it
 * back if another writer created it first, so a replay or a race never counts a tag twice. (Only
 * a crash between the reservation and the creation leaves one place taken with no tag: the count
 * errs towards the limit, never past it.)
 */

interface Sighting extends TagScope {
  tag: string;
  tagKey: string;
  first: number;
  last: number;
}

/** One sighting per (account, domain or none, tag) in the batch, spanning its events' times. */
function sightingsOf(events: RecordedEvent[]): Sighting[] {
  const found = new Map<string, Sighting>();
  const see = (scope: TagScope, tag: string, tagKey: string, at: number) => {
    const id = JSON.stringify([scope.accountId, scope.domain ?? null, tagKey]);
    const known = found.get(id);
    if (!known) found.set(id, { ...scope, tag, tagKey, first: at, last: at });
    else {
      known.first = Math.min(known.first, at);
      known.last = Math.max(known.last, at);
    }
  };
  for (const { accountId, domain, data } of events) {
    // The platform's own mail (an alert's tags) is not the account's: its tags stay out of its list.
    if (isPlatformMailEvent(data)) continue;
    const tags = Array.isArray(data['tags']) ? (data['tags'] as unknown[]) : [];
    const at = Math.round(data.timestamp * 1000);
    for (const raw of tags) {
      const name = typeof raw === 'string' ? normaliseTag(raw) : undefined;
      if (!name) continue;
      see({ accountId }, name.tag, name.tagKey, at);
      see({ accountId, domain }, name.tag, name.tagKey, at);
    }
  }
  return [...found.values()];
}

async function register(sighting: Sighting): Promise<void> {
  const scope: TagScope = sighting.domain === undefined ? { accountId: sighting.accountId } : { accountId: sighting.accountId, domain: sighting.domain };
  if (!(await getTag(scope, sighting.tagKey))) {
    const limit = scope.domain === undefined ? env().TAG_LIMIT_ACCOUNT : env().TAG_LIMIT_DOMAIN;
    if (!(await reservePlace(scope, limit))) return;
    const created = await createTag({
      ...scope,
      tag: sighting.tag,
      tagKey: sighting.tagKey,
      description: '',
      firstSeen: sighting.first,
      lastSeen: sighting.last,
    });
    if (created) return;
    // Someone else registered it between our read and our write: theirs stands, ours widens it.
    await releasePlace(scope);
  }
  await widenSightings(scope, sighting.tagKey, sighting.first, sighting.last);
}

/** Registers the tags of a batch of newly recorded events. */
export async function registerTags(events: RecordedEvent[]): Promise<void> {
  // A handful of writes per distinct tag per batch, however many events carried it.
  await mapLimit(sightingsOf(events), 8, register);
}
