// Debian's Chromium through playwright-core (no browser download), launched the
// same way by every browser test: headless, no sandbox, no GPU, and none of the
// background requests (updates, sync) that would try to leave the machine.
import { chromium } from 'playwright-core';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Debian Chromium; the caller closes it. */
export function launchChromium() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}
