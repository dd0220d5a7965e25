import { coldStart, printColdStart } from './cold-start';
void coldStart().then(printColdStart);
