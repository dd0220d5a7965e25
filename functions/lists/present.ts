import { rfc1123 } from '../platform/dates';
import type { ListItem, MemberItem } from './list-store';

/** The list object of contract §10; created_at RFC 1123 (mailgun-go's RFC2822Time). */
export function listJson(list: ListItem) {
  return {
    address: list.address,
    name: list.name,
    description: list.description,
    access_level: list.accessLevel,
    reply_preference: list.replyPreference,
    created_at: rfc1123(list.createdAt),
    members_count: list.membersCount,
  };
}

/** The member object: `vars` an object on output (a JSON string on input). */
export function memberJson(member: MemberItem) {
  return { address: member.address, name: member.name, subscribed: member.subscribed, vars: member.vars };
}
