import { runSynth, type SynthJob } from './app-synth';

// The background process startAppSynth starts (detached from jest): makes and files one synth.
runSynth(JSON.parse(process.env['APP_SYNTH_JOB']!) as SynthJob);
