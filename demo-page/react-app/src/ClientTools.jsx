// The client tools this page offers, registered with useClientTool: the user's location (the
// handler of the latest render runs, so the checkbox applies without re-registering) and the
// package's approval gate.
import { useEffect, useState } from 'react';
import { requestUserApproval } from 'agui-client-tools';
import { useClientTool } from 'agui-client-tools/react';
import { probe } from './probe.js';

const round = (x, precise) => (precise ? x : Math.round(x * 100) / 100);

function locate() {
  return new Promise((resolve, reject) =>
    navigator.geolocation.getCurrentPosition(resolve, (e) => reject(new Error(e.message)), { timeout: 10000 }),
  );
}

export function ClientTools() {
  const [precise, setPrecise] = useState(true);
  useEffect(() => {
    probe.mounts += 1; // StrictMode mounts twice in development
  }, []);
  useClientTool({
    name: 'get_current_location',
    description: "The user's coordinates, from the browser.",
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    handler: async (_args, { toolCallId }) => {
      probe.toolRuns[toolCallId] = (probe.toolRuns[toolCallId] ?? 0) + 1;
      const { coords } = await locate();
      return { latitude: round(coords.latitude, precise), longitude: round(coords.longitude, precise), precise };
    },
  });
  useClientTool({ ...requestUserApproval, defaultEnabled: true });
  return (
    <label className="tools">
      <input id="precise" type="checkbox" checked={precise} onChange={(e) => setPrecise(e.target.checked)} /> Share my
      precise location
    </label>
  );
}
