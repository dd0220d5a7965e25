import { logger } from '../../platform/logger';
import { PREVIEW_CLIENTS, type CatalogClient, type Fidelity } from './clients';
import type { RealClient } from './real-clients/contract';
import { realClientTier } from './real-clients/real-client-tier';

/** A client as a test and its results show it, emulated or real. */
export interface ClientInfo extends CatalogClient {
  fidelity: Fidelity | 'real';
  /** Set for a client of the real-client tier: the service that screenshots it. */
  service?: string;
}

/** The service's client list is asked for once an hour per container: it changes with their device lab, not per request. */
const REAL_CATALOG_SECONDS = 3600;
let realCatalog: { at: number; clients: RealClient[]; service: string } | undefined;

async function realClients(): Promise<{ service: string; clients: RealClient[] } | undefined> {
  const tier = await realClientTier();
  if (!tier) return undefined;
  if (realCatalog && realCatalog.service === tier.name && Date.now() - realCatalog.at < REAL_CATALOG_SECONDS * 1000) return realCatalog;
  try {
    realCatalog = { at: Date.now(), clients: await tier.clients(), service: tier.name };
  } catch (error) {
    // Its clients are missing from the catalog while the service cannot be reached: never invented.
    logger.warn('the real-client service did not list its clients', { service: tier.name, error: (error as Error).message });
    return realCatalog;
  }
  return realCatalog;
}

/**
 * Every client a test may name: the emulated catalog, and the real-client tier's clients when it
 * is configured, which take the place of an emulated client of the same id.
 */
export async function previewCatalog(): Promise<Map<string, ClientInfo>> {
  const catalog = new Map<string, ClientInfo>();
  for (const c of PREVIEW_CLIENTS.values()) catalog.set(c.id, emulatedInfo(c.id)!);
  const real = await realClients();
  for (const c of real?.clients ?? []) catalog.set(c.id, { ...c, free: false, default: false, fidelity: 'real', service: real!.service });
  return catalog;
}

function emulatedInfo(id: string): ClientInfo | undefined {
  const c = PREVIEW_CLIENTS.get(id);
  if (!c) return undefined;
  const { profile: _profile, caniemail: _caniemail, dark: _dark, viewport: _viewport, ...info } = c;
  return info;
}

/** The client of a test's client state: the real one it was made with, or the emulated one. */
export function clientInfoOf(state: { clientId: string; real?: ClientInfo }): ClientInfo {
  return state.real ?? emulatedInfo(state.clientId)!;
}

/** GET /v1/preview/tests/clients: the catalog as §5.1 shows it, `fidelity` added, `ext` unknown (""). */
export async function catalogJson() {
  const clients: Record<string, object> = {};
  for (const { service: _service, ...c } of (await previewCatalog()).values()) clients[c.id] = { ...c, ext: '' };
  return { clients };
}
