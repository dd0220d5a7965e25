/** The kinds of trap hits Mailgun reports (optimize contract 1.4). */
export const TRAP_TYPES = ['pristine', 'recycled', 'typo', 'harvested'] as const;
export type TrapType = (typeof TRAP_TYPES)[number];

/** The stored count of each kind (functions/analytics/counts.ts). */
export const trapCount = (type: TrapType) => `trap_${type}` as const;
