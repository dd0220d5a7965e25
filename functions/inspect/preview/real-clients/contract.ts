import type { CatalogClient } from '../clients';

/** A client as a real-client service lists it (the catalog's fields, contract §5.1). */
export type RealClient = Omit<CatalogClient, 'free'>;

/** One client's result at the service: its state, and where its screenshots are (by our names). */
export interface RealResult {
  status: 'Complete' | 'Processing' | 'Bounced' | 'Pending';
  screenshots: Record<string, string>;
  bounceCode?: string;
  bounceMessage?: string;
}

/**
 * A service that screenshots emails in real mail clients, behind the same preview contract: a
 * test names its clients, the service renders them, and the render task copies each finished
 * client's screenshots into our bucket, so results, exports and shares work as for emulated ones.
 */
export interface RealClientTier {
  readonly name: string;
  clients(): Promise<RealClient[]>;
  createTest(test: { subject: string; html: string; clients: string[]; imageBlocking: boolean }): Promise<string>;
  results(remoteId: string): Promise<Record<string, RealResult>>;
  /** A screenshot's bytes (the service's URLs need its credentials or expire). */
  download(url: string): Promise<Buffer>;
}
