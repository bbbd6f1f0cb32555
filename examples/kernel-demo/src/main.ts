import { main } from './demo.js';

await main();
