import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import type { Server } from 'node:http';
import { createTableInput } from '../../functions/data/table';
import { closeServer, listenOnLoopback } from './http';

// dynalite ships no types; this is the part of its API we use.
type Dynalite = (options: { path?: string; createTableMs?: number; deleteTableMs?: number; updateTableMs?: number }) => Server;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dynalite = require('dynalite') as Dynalite;

export interface LocalDynamo {
  endpoint: string;
  close(): Promise<void>;
}

/** dynalite on loopback, on LevelDB under `path` (or in memory), with the platform table created. */
export async function startDynamo(path: string | undefined, tableName: string, region: string): Promise<LocalDynamo> {
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const endpoint = await listenOnLoopback(server);
  const client = new DynamoDBClient({ region, endpoint });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await client.send(new CreateTableCommand(createTableInput(tableName)));
    // On LevelDB the table turns ACTIVE a moment later, and until then dynalite calls it missing.
    await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 0.05, maxDelay: 0.2 }, { TableName: tableName });
  } finally {
    client.destroy();
  }
  return { endpoint, close: () => closeServer(server) };
}
