// Builds a small form from a JSON Schema (an interrupt's responseSchema) and reads it back as a
// payload: boolean → checkbox, string → text input, number/integer → number input, enum → select,
// anything nested → a JSON text area. Required fields are marked. Labels are text, never HTML.
import { h, prettify } from './dom.js';

let formCounter = 0;

function typeOf(schema) {
  if (!schema || typeof schema !== 'object') return 'any';
  if (Array.isArray(schema.enum)) return 'enum';
  if ('const' in schema) return 'const';
  const t = Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type;
  return t ?? 'any';
}

function fieldFor(key, schema, required, idBase) {
  const id = `${idBase}-${key.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const type = typeOf(schema);
  const title = typeof schema?.title === 'string' ? schema.title : prettify(key);
  const help =
    typeof schema?.description === 'string' ? h('small', { class: 'field-help', text: schema.description }) : null;
  const label = h(
    'label',
    { for: id },
    title,
    required ? h('span', { class: 'required', title: 'required', text: ' *' }) : null,
  );
  let input;
  let read;
  if (type === 'boolean') {
    input = h('input', { type: 'checkbox', id, name: key, checked: schema?.default === true });
    read = () => ({ present: true, value: input.checked });
    return {
      el: h('div', { class: 'field field-check', dataset: { field: key, type } }, input, label, help),
      read,
    };
  }
  if (type === 'enum') {
    input = h('select', { id, name: key, required });
    if (!required) input.append(h('option', { value: '', text: '—' }));
    schema.enum.forEach((v, i) =>
      input.append(h('option', { value: String(i), text: JSON.stringify(v).replace(/^"|"$/g, '') })),
    );
    if ('default' in schema) {
      const i = schema.enum.findIndex((v) => JSON.stringify(v) === JSON.stringify(schema.default));
      if (i >= 0) input.value = String(i);
    }
    read = () => (input.value === '' ? { present: false } : { present: true, value: schema.enum[Number(input.value)] });
  } else if (type === 'const') {
    return { el: null, read: () => ({ present: true, value: schema.const }) };
  } else if (type === 'number' || type === 'integer') {
    input = h('input', { type: 'number', id, name: key, required, step: type === 'integer' ? '1' : 'any' });
    if (typeof schema.minimum === 'number') input.min = String(schema.minimum);
    if (typeof schema.maximum === 'number') input.max = String(schema.maximum);
    if (typeof schema.default === 'number') input.value = String(schema.default);
    read = () => (input.value === '' ? { present: false } : { present: true, value: Number(input.value) });
  } else if (type === 'string') {
    const long = (schema.maxLength ?? 0) > 200 || schema.format === 'textarea';
    input = h(long ? 'textarea' : 'input', { id, name: key, required, rows: long ? 3 : undefined });
    if (!long) input.type = 'text';
    if (typeof schema.maxLength === 'number') input.maxLength = schema.maxLength;
    if (typeof schema.default === 'string') input.value = schema.default;
    read = () => (input.value === '' && !required ? { present: false } : { present: true, value: input.value });
  } else {
    input = h('textarea', { id, name: key, required, rows: 3, placeholder: 'JSON', class: 'mono' });
    if ('default' in (schema ?? {})) input.value = JSON.stringify(schema.default);
    read = () => {
      if (input.value.trim() === '') return { present: false };
      try {
        return { present: true, value: JSON.parse(input.value) };
      } catch (e) {
        throw new Error(`${title}: not valid JSON (${e.message})`);
      }
    };
  }
  return { el: h('div', { class: 'field', dataset: { field: key, type } }, label, input, help), read };
}

/**
 * @param {object | undefined} schema the responseSchema (an object schema, or anything)
 * @returns {{el: HTMLElement, read: () => any}} read() returns the payload (throws on bad JSON)
 */
export function buildSchemaForm(schema) {
  const idBase = `sf${++formCounter}`;
  const fields = h('div', { class: 'schema-fields' });
  if (!schema || typeof schema !== 'object') return { el: fields, read: () => null };
  const type = typeOf(schema);
  if (type !== 'object' || !schema.properties || typeof schema.properties !== 'object') {
    // Not an object schema: one field for the whole payload.
    const field = fieldFor('response', schema, true, idBase);
    if (field.el) fields.append(field.el);
    return { el: fields, read: () => field.read().value ?? null };
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const readers = [];
  // Required fields first (each group in the order the schema lists them).
  const entries = Object.entries(schema.properties);
  const ordered = [...entries.filter(([k]) => required.has(k)), ...entries.filter(([k]) => !required.has(k))];
  for (const [key, sub] of ordered) {
    const field = fieldFor(key, sub, required.has(key), idBase);
    if (field.el) fields.append(field.el);
    readers.push([key, field.read]);
  }
  if (required.size) fields.append(h('p', { class: 'field-note', text: '* required' }));
  return {
    el: fields,
    read: () => {
      const payload = {};
      for (const [key, read] of readers) {
        const { present, value } = read();
        if (present) payload[key] = value;
      }
      return payload;
    },
  };
}
