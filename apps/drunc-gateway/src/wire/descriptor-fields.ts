/**
 * A loaded descriptor as the wire tables of each drunc era state it: every message's fields as
 * [name, number, type, label], message types by full name. The tables' specs compare the
 * project's .proto files with druncschema's published descriptors through it.
 */
import type * as protobuf from 'protobufjs';

export type Label = 'single' | 'optional' | 'repeated' | 'map';
/** [name, number, type, label]; message types by full name. */
export type Field = [string, number, string, Label];

export const fullName = (t: protobuf.ReflectionObject) => t.fullName.replace(/^\./, '');

export function fieldsOf(type: protobuf.Type): Field[] {
  return type.fieldsArray.map((f) => {
    const typeName = f.resolvedType ? fullName(f.resolvedType) : f.type;
    const label: Label = f.map
      ? 'map'
      : f.repeated
        ? 'repeated'
        : f.options?.proto3_optional
          ? 'optional'
          : 'single';
    return [f.name, f.id, typeName, label];
  });
}

/** Every message of a namespace, nested ones included, map entries and google's types left out. */
export function messagesOf(ns: protobuf.NamespaceBase): string[] {
  const all = (n: protobuf.NamespaceBase): protobuf.Type[] =>
    n.nestedArray.flatMap((nested) => {
      const own = 'fieldsArray' in nested ? [nested as protobuf.Type] : [];
      const inner = 'nestedArray' in nested ? all(nested as protobuf.NamespaceBase) : [];
      return [...own, ...inner];
    });
  return all(ns)
    .map(fullName)
    .filter((n) => !n.startsWith('google.protobuf.') && !n.endsWith('Entry'))
    .sort();
}
