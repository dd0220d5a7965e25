import { defineEntity } from '../data/key-registry';
import type { Key } from '../data/store';

/**
 * Dedicated IP pools (DIPPs) and what parents delegate to subaccounts, as records: their keys and
 * item types, without SES's client, for the paths that only read them (accepting a message,
 * choosing its address). ip-pools.ts keeps them.
 */
export const ipPoolKeys = defineEntity(
  'ip pools',
  {
    ipPool: {
      what: 'a dedicated IP pool (DIPP) of an account; ids are objectIds, so the partition is in creation order',
      pk: 'ACCT#<account>#IPPOOLS',
      sk: '<pool id>',
      key: (accountId: string, poolId = ''): Key => ({ pk: `ACCT#${accountId}#IPPOOLS`, sk: poolId }),
    },
    poolDelegation: {
      what: "a parent's pool delegated to a subaccount (it may link domains to it)",
      pk: 'ACCT#<subaccount>#IPDELEGATIONS',
      sk: 'POOL#<pool id>',
      key: (subaccountId: string, poolId: string): Key => ({ pk: `ACCT#${subaccountId}#IPDELEGATIONS`, sk: `POOL#${poolId}` }),
    },
    ipDelegation: {
      what: "a parent's dedicated IP delegated to a subaccount",
      pk: 'ACCT#<subaccount>#IPDELEGATIONS',
      sk: 'IP#<ip>',
      key: (subaccountId: string, ip: string): Key => ({ pk: `ACCT#${subaccountId}#IPDELEGATIONS`, sk: `IP#${ip}` }),
    },
  },
  [
    { what: "an account's pools", pk: 'ACCT#<account>#IPPOOLS' },
    { what: "what was delegated to a subaccount (pools and IPs; IP# for the IPs alone)", pk: 'ACCT#<subaccount>#IPDELEGATIONS' },
  ],
);

/** The partition of what was delegated to a subaccount, for its queries. */
export const delegationsOf = (subaccountId: string) => ({ pk: ipPoolKeys.ipDelegation(subaccountId, '').pk });

/** A dedicated IP pool (DIPP): a named set of the account's dedicated IPs that domains are linked to. */
export interface IpPoolItem {
  poolId: string;
  accountId: string;
  name: string;
  description: string;
  ips: string[];
  createdAt: string;
  /** Subaccounts it is delegated to: they may link their domains to it, not change it. */
  delegatedTo?: string[];
  /** Changes with every change of `delegatedTo`: what its compare-and-set compares (ip-pools.ts changeDelegates). */
  delegatesRevision?: string;
  /** Set by DELETE: its domains are being moved to the replacement, then it goes (ip-jobs.ts). */
  deleting?: { replacement: DomainAssignment; requestedAt: string };
}

/** A pool as an account sees it: its own, or one its parent delegated to it. */
export type VisiblePool = IpPoolItem & { inherited: boolean };

/** What a domain sends from: a DIPP (the parent's, for a delegated one), its own dedicated IPs, or SES's shared addresses. */
export type DomainAssignment = { poolId: string; ownerId?: string } | { ips: string[] } | 'shared';

/** A delegation of a parent's pool or IP to a subaccount. */
export interface IpDelegationItem {
  subaccountId: string;
  parentId: string;
  poolId?: string;
  ip?: string;
  delegatedAt: string;
}

