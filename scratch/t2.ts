import { startDynamo } from '../lib/local/dynamodb';
import { withEnv, env } from '../functions/platform/env';
import { db } from '../functions/data/db';
process.env.AWS_ACCESS_KEY_ID='x'; process.env.AWS_SECRET_ACCESS_KEY='x';
(async()=>{ const d = await startDynamo(undefined,'mailplane','us-east-1');
await withEnv({TABLE_NAME:'mailplane', DYNAMODB_ENDPOINT:d.endpoint, AWS_REGION:'us-east-1'}, async()=>{
 console.log(env());
 const p = db().system.get({name:'x'}).params(); console.log(p);
 console.log(await db().system.get({name:'x'}).go());
});
await d.close();})();
