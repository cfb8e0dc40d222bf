// Writes data/permits.sqlite: 3000 synthetic building permits for an Austin-like city, from a fixed seed.
//
// Run: node data/generate-permits.mjs [output path]. No network: every value comes from the seeded
// generator (the tests' one, tests/support/random.mjs), so a rerun gives the same rows (and, with the
// same SQLite build, the same bytes; the test suite compares rows, which is the promise that survives
// a better-sqlite3 upgrade).
import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../../tests/support/random.mjs';

const OUTPUT = process.argv[2] ?? fileURLToPath(new URL('./permits.sqlite', import.meta.url));
const ROW_COUNT = 3000;
const SEED = 0x5eed2024;

const random = seededRandom(SEED);
const pick = (items) => items[Math.floor(random() * items.length)];
const between = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
function weighted(entries) {
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  let r = random() * total;
  for (const [value, w] of entries) if ((r -= w) < 0) return value;
  return entries[entries.length - 1][0];
}
function gaussian() {
  // Box-Muller; 1 - random() keeps log() away from 0.
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

// Neighbourhood clusters: centre, spread in degrees, ZIP codes and local streets. Permits cluster
// like real ones do (dense core, growth corridors), which makes the map demo look plausible.
// prettier-ignore
const CLUSTERS = [
  { name: 'Downtown', lat: 30.2686, lon: -97.7431, spread: 0.008, weight: 14, zips: ['78701'], streets: ['Congress Ave', 'Lavaca St', 'Colorado St', 'W 6th St', 'E 5th St', 'Brazos St', 'San Jacinto Blvd'] },
  { name: 'East Austin', lat: 30.2631, lon: -97.7206, spread: 0.012, weight: 14, zips: ['78702', '78721'], streets: ['E Cesar Chavez St', 'E 7th St', 'Chicon St', 'Pleasant Valley Rd', 'Webberville Rd', 'Rosewood Ave'] },
  { name: 'South Congress', lat: 30.2455, lon: -97.7516, spread: 0.013, weight: 12, zips: ['78704'], streets: ['S Congress Ave', 'S 1st St', 'W Mary St', 'Oltorf St', 'S Lamar Blvd', 'Barton Springs Rd'] },
  { name: 'Hyde Park', lat: 30.3055, lon: -97.7300, spread: 0.010, weight: 9, zips: ['78751', '78705'], streets: ['Duval St', 'Speedway', 'W 38th St', 'Guadalupe St', 'Avenue F', 'E 45th St'] },
  { name: 'Mueller', lat: 30.2985, lon: -97.7055, spread: 0.009, weight: 8, zips: ['78723'], streets: ['Aldrich St', 'Berkman Dr', 'Manor Rd', 'Philomena St', 'Airport Blvd'] },
  { name: 'North Lamar', lat: 30.3450, lon: -97.7150, spread: 0.015, weight: 10, zips: ['78752', '78753', '78757'], streets: ['N Lamar Blvd', 'Rundberg Ln', 'Anderson Ln', 'Burnet Rd', 'Koenig Ln'] },
  { name: 'The Domain', lat: 30.4020, lon: -97.7250, spread: 0.012, weight: 9, zips: ['78758', '78759'], streets: ['Domain Dr', 'Burnet Rd', 'Braker Ln', 'Parmer Ln', 'Duval Rd', 'Kramer Ln'] },
  { name: 'Riverside', lat: 30.2380, lon: -97.7230, spread: 0.011, weight: 8, zips: ['78741'], streets: ['E Riverside Dr', 'Pleasant Valley Rd', 'Montopolis Dr', 'Grove Blvd', 'Elmont Dr'] },
  { name: 'South Austin', lat: 30.1950, lon: -97.7900, spread: 0.018, weight: 10, zips: ['78745', '78748'], streets: ['W William Cannon Dr', 'Slaughter Ln', 'Manchaca Rd', 'Brodie Ln', 'S 1st St'] },
  { name: 'Westlake Hills', lat: 30.2930, lon: -97.8010, spread: 0.012, weight: 6, zips: ['78746', '78703'], streets: ['Bee Caves Rd', 'Exposition Blvd', 'Westlake Dr', 'Windsor Rd', 'Enfield Rd'] },
];

// Permit types with their share, id suffix, work classes (with share and a lognormal valuation:
// median dollars and spread) and description templates.
// prettier-ignore
const TYPES = [
  { type: 'Residential', weight: 34, suffix: 'BP', classes: [
    ['Remodel', 30, 45000, 0.8, ['Remodel of single-family residence: kitchen and {n} bathrooms', 'Interior remodel, {n} bedrooms, new finishes']],
    ['Addition', 15, 120000, 0.7, ['{n}-room addition to existing single-family residence', 'Second-story addition, {n} bedrooms']],
    ['New', 20, 420000, 0.5, ['New single-family residence, {n} bedrooms, attached garage', 'New duplex, {n} units total']],
    ['Repair', 15, 12000, 0.9, ['Foundation repair, {n} piers', 'Fire damage repair to {n} rooms']],
    ['Pool', 10, 65000, 0.4, ['New in-ground swimming pool and spa', 'Pool with {n}-foot deck']],
    ['Accessory Dwelling', 10, 160000, 0.5, ['New accessory dwelling unit, {n} bedrooms', 'Garage conversion to ADU']],
  ] },
  { type: 'Commercial', weight: 15, suffix: 'BP', classes: [
    ['Tenant Finish-Out', 40, 180000, 1.0, ['Finish-out for restaurant, {n} seats', 'Office finish-out, suite {n}00', 'Retail finish-out, {n},000 sq ft']],
    ['Remodel', 25, 240000, 1.0, ['Remodel of existing office, floors 1-{n}', 'Storefront and restroom remodel']],
    ['New', 15, 4200000, 0.7, ['New {n}-story mixed-use building', 'New {n}-story office building with parking', 'New multifamily, {n}0 units']],
    ['Addition', 10, 650000, 0.9, ['Addition to existing warehouse, {n},000 sq ft', 'Classroom addition, {n} rooms']],
    ['Shell', 10, 1500000, 0.8, ['Shell building for future retail, {n} suites', 'Warehouse shell, {n},000 sq ft']],
  ] },
  { type: 'Electrical', weight: 18, suffix: 'EP', classes: [
    ['Service Upgrade', 30, 4500, 0.5, ['Upgrade service to {n}00 amp panel', 'Replace meter base and panel']],
    ['Solar PV', 30, 24000, 0.4, ['Install {n}.2 kW rooftop solar PV system', 'Roof-mounted solar, {n}0 panels, battery storage']],
    ['EV Charger', 20, 2800, 0.4, ['Install Level 2 EV charger, {n}0 amp circuit', 'EV charging stations, {n} ports']],
    ['Rewire', 12, 9000, 0.6, ['Whole-house rewire, {n} circuits', 'Rewire detached garage']],
    ['Generator', 8, 14000, 0.4, ['Standby generator, {n}2 kW, automatic transfer switch']],
  ] },
  { type: 'Plumbing', weight: 14, suffix: 'PP', classes: [
    ['Water Heater', 35, 2200, 0.4, ['Replace {n}0-gallon water heater', 'Install tankless water heater']],
    ['Gas Line', 20, 3500, 0.5, ['New gas line to range and {n} appliances', 'Gas line repair and pressure test']],
    ['Sewer Repair', 20, 7500, 0.6, ['Replace {n}0 ft of sewer line', 'Sewer tap and cleanout']],
    ['Repipe', 15, 11000, 0.5, ['Whole-house repipe, PEX, {n} fixtures']],
    ['Irrigation', 10, 4000, 0.5, ['Irrigation system, {n} zones, backflow preventer']],
  ] },
  { type: 'Mechanical', weight: 9, suffix: 'MP', classes: [
    ['HVAC Replacement', 55, 9500, 0.4, ['Replace {n}-ton HVAC system', 'Change out condenser and furnace']],
    ['New HVAC', 25, 16000, 0.5, ['New {n}-ton split system with ductwork']],
    ['Commercial Kitchen Hood', 20, 38000, 0.6, ['Type I kitchen hood, {n} ft, with fire suppression']],
  ] },
  { type: 'Demolition', weight: 5, suffix: 'DA', classes: [
    ['Total Demolition', 50, 18000, 0.6, ['Demolish single-family residence and {n} accessory structures', 'Demolish commercial building, {n},000 sq ft']],
    ['Partial Demolition', 30, 8000, 0.6, ['Partial demolition of rear {n} rooms', 'Remove carport and {n} walls']],
    ['Interior Demolition', 20, 6000, 0.6, ['Interior demolition for future finish-out, suite {n}00']],
  ] },
  { type: 'Sign', weight: 5, suffix: 'SP', classes: [
    ['Wall Sign', 65, 3800, 0.5, ['Illuminated wall sign, {n}0 sq ft', 'Channel letter sign, {n} faces']],
    ['Monument Sign', 35, 9000, 0.5, ['Monument sign, {n} tenant panels']],
  ] },
];

// Contractors by trade, so a sign company never builds an office tower.
// prettier-ignore
const CONTRACTORS = {
  building: ['Lone Star Builders', 'Hill Country Construction', 'Capital City Remodeling', 'Pecan Street Homes',
    'Barton Creek Builders', 'Travis Heights Design Build', 'Eastside Restoration', 'Ladybird Homes', 'Shoal Creek Builders'],
  commercial: ['Limestone Commercial', 'Balcones Development', 'Mopac General Contractors', 'Granite Peak Construction',
    'Colorado River Contracting'],
  electrical: ['Bluebonnet Electric', 'Longhorn Electrical Services', 'Capitol Wiring Co'],
  solar: ['Sunbelt Solar', 'Violet Crown Solar'],
  plumbing: ['Live Oak Plumbing', 'Riverbend Plumbing Co', 'Onion Creek Plumbing'],
  mechanical: ['Armadillo Air', 'Cedar Park Mechanical', 'Tejas Mechanical'],
  pool: ['Zilker Pools', 'Blue Hole Pool Co'],
  demolition: ['Frontier Demolition', 'Wrecking Crew of Texas'],
  sign: ['Red Bud Sign Co', 'Neon Armadillo Signs'],
};
function contractorFor(type, workClass) {
  if (workClass === 'Pool') return pick(CONTRACTORS.pool);
  if (workClass === 'Solar PV') return pick(CONTRACTORS.solar);
  if (type === 'Residential') return random() < 0.12 ? 'Owner/Builder' : pick(CONTRACTORS.building);
  return pick(CONTRACTORS[type.toLowerCase()]);
}

// prettier-ignore
const STATUSES_BY_AGE = [
  // [minimum age in days, status weights]
  [365, [['Final', 78], ['Expired', 14], ['Cancelled', 5], ['Active', 3]]],
  [120, [['Final', 45], ['Active', 40], ['Expired', 6], ['Cancelled', 4], ['Issued', 5]]],
  [0, [['Issued', 45], ['Active', 42], ['Final', 8], ['Cancelled', 5]]],
];

const START = Date.UTC(2023, 0, 1);
const DAYS = 731; // 2023-01-01 .. 2024-12-31
const END = START + (DAYS - 1) * 86400000;

function issuedDay() {
  // Busier in spring and summer and growing year over year, so the monthly chart has a shape.
  for (;;) {
    const day = Math.floor(random() * DAYS);
    const date = new Date(START + day * 86400000);
    const weekday = date.getUTCDay();
    const season = 1 + 0.35 * Math.sin(((date.getUTCMonth() - 2) / 12) * 2 * Math.PI);
    const growth = 0.85 + 0.3 * (day / DAYS);
    const open = weekday === 0 || weekday === 6 ? 0.08 : 1;
    if (random() < (open * season * growth) / 1.6) return date;
  }
}

function makePermit() {
  const date = issuedDay();
  const kind = weighted(TYPES.map((t) => [t, t.weight]));
  const [workClass, , median, sigma, templates] = weighted(kind.classes.map((c) => [c, c[1]]));
  const cluster = weighted(CLUSTERS.map((c) => [c, c.weight]));
  const lat = cluster.lat + gaussian() * cluster.spread;
  const lon = cluster.lon + gaussian() * cluster.spread * 1.15; // a degree of longitude is shorter here
  // Lognormal around the class median, clamped so one outlier cannot flatten every chart.
  const factor = Math.min(6, Math.max(0.15, Math.exp(gaussian() * sigma)));
  const valuation = Math.max(500, Math.round((median * factor) / 50) * 50);
  const ageDays = (END - date.getTime()) / 86400000;
  const status = weighted(STATUSES_BY_AGE.find(([minAge]) => ageDays >= minAge)[1]);
  return {
    date,
    suffix: kind.suffix,
    permit_type: kind.type,
    work_class: workClass,
    description: pick(templates).replace('{n}', String(between(2, 6))),
    address: `${between(100, 9899)} ${pick(cluster.streets)}`,
    zip: pick(cluster.zips),
    lat: Math.round(lat * 1e6) / 1e6,
    lon: Math.round(lon * 1e6) / 1e6,
    valuation,
    status,
    contractor: contractorFor(kind.type, workClass),
  };
}

const permits = Array.from({ length: ROW_COUNT }, makePermit);
// Ids increase with the issue date within each year, as a real permit office numbers them.
permits.sort((a, b) => a.date - b.date);
const sequence = new Map();
for (const p of permits) {
  const year = p.date.getUTCFullYear();
  const n = (sequence.get(year) ?? 0) + between(1, 9);
  sequence.set(year, n);
  p.permit_id = `${year}-${String(n).padStart(6, '0')} ${p.suffix}`;
  p.issued_date = p.date.toISOString().slice(0, 10);
}

// Build into a temp file and rename, so a reader never sees a half-written database.
const temp = `${OUTPUT}.tmp`;
rmSync(temp, { force: true });
const db = new Database(temp);
db.pragma('journal_mode = DELETE');
db.exec(`
  CREATE TABLE permits (
    permit_id   TEXT PRIMARY KEY,
    issued_date TEXT NOT NULL,  -- ISO date, YYYY-MM-DD
    permit_type TEXT NOT NULL,
    work_class  TEXT NOT NULL,
    description TEXT NOT NULL,
    address     TEXT NOT NULL,
    zip         TEXT NOT NULL,
    lat         REAL NOT NULL,
    lon         REAL NOT NULL,
    valuation   INTEGER NOT NULL, -- declared project value, US dollars
    status      TEXT NOT NULL,
    contractor  TEXT NOT NULL
  ) WITHOUT ROWID; -- 3000 rows scan in well under a millisecond: no extra indexes, a smaller file
`);
const insert = db.prepare(`INSERT INTO permits VALUES (@permit_id, @issued_date, @permit_type, @work_class,
  @description, @address, @zip, @lat, @lon, @valuation, @status, @contractor)`);
db.transaction(() => {
  for (const { date, suffix, ...row } of permits) insert.run(row);
})();
db.exec('VACUUM');
db.close();
if (existsSync(OUTPUT)) rmSync(OUTPUT);
renameSync(temp, OUTPUT);
console.log(`wrote ${ROW_COUNT} permits to ${OUTPUT}`);
