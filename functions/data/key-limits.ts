/**
 * How long a name or id taken from a request may be, so that every key built from it stays within
 * DynamoDB's limits (partition keys 2048 bytes, sort keys 1024). A longer value names nothing that
 * can exist, and DynamoDB refuses the request outright (a 500), so it is turned away first.
 */

/** DynamoDB's own limit on a sort key, in bytes of UTF-8. */
export const MAX_SORT_KEY_BYTES = 1024;

/** A domain name: 253 characters (RFC 1035), ASCII once IDNA-encoded, so 253 bytes. */
export const MAX_DOMAIN_NAME_BYTES = 253;

/**
 * Any other value that becomes part of a key (template names, version tags, addresses, tags,
 * pivots, ids). The longest prefix written before such a value in a sort key is 14 bytes (the tag
 * index's `<13-digit time>#`), and a partition key holds at most a domain and one such value
 * beside short fixed parts, so 1000 bytes keeps every key we build under both limits.
 */
export const MAX_KEY_PART_BYTES = 1000;

export const byteLength = (value: string) => Buffer.byteLength(value, 'utf8');
