import { startDynamo } from '../lib/local/dynamodb';
import { DynamoDBClient, ListTablesCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
process.env.AWS_ACCESS_KEY_ID='x'; process.env.AWS_SECRET_ACCESS_KEY='x';
(async()=>{ const d = await startDynamo('/tmp/dyn1','mailplane','us-east-1'); const c=new DynamoDBClient({region:'us-east-1',endpoint:d.endpoint});
console.log(await c.send(new ListTablesCommand({})));
console.log((await c.send(new DescribeTableCommand({TableName:'mailplane'}))).Table?.TableStatus);
await d.close();})();
