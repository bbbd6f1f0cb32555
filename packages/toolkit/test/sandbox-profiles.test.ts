import { describe, expect, it } from 'vitest';
import { SandboxProfiles } from '../src/index.js';

describe('sandbox profile providers', () => {
  it('none registered: no profile; one: its own; two: the strictest of both', () => {
    const profiles = new SandboxProfiles();
    expect(profiles.profile('/w')).toBeUndefined();
    const offA = profiles.add(() => ({ writable: ['/w', '/x'], readOnly: ['/w/.cfg'], hidden: ['/h/a'], classify: (p) => (p.endsWith('.env') ? 'hidden' : undefined), allowedHosts: ['a.com', 'b.com'] }));
    expect(profiles.profile('/w')?.writable).toEqual(['/w', '/x']);
    profiles.add(({ cwd }) => ({ writable: [cwd], readOnly: [], hidden: ['/h/b'], classify: (p) => (p.endsWith('.rc') ? 'read-only' : p.endsWith('.env') ? 'read-only' : undefined), allowedHosts: ['b.com'] }));
    const both = profiles.profile('/w')!;
    expect(both.writable).toEqual(['/w']);
    expect(both.readOnly).toEqual(['/w/.cfg']);
    expect(both.hidden).toEqual(['/h/a', '/h/b']);
    expect(both.classify('/w/.env')).toBe('hidden');
    expect(both.classify('/w/.rc')).toBe('read-only');
    expect(both.classify('/w/a.ts')).toBeUndefined();
    expect(both.allowedHosts).toEqual(['b.com']);
    // Without their own judgment, providers open their literal names; a host must pass every provider.
    expect(both.allowsHost!('b.com')).toBe(true);
    expect(both.allowsHost!('a.com')).toBe(false);
    offA();
    expect(profiles.profile('/w')?.writable).toEqual(['/w']);
  });

  it('a provider that only adds places (addsOnly) narrows neither the roots nor the hosts, and still adds its places', () => {
    const profiles = new SandboxProfiles();
    profiles.add(() => ({ writable: ['/w', '/x'], readOnly: [], hidden: [], classify: () => undefined, allowedHosts: ['a.com'] }));
    profiles.add(({ cwd }) => ({ writable: [cwd], readOnly: ['/w/hooks/check.sh'], hidden: [], addsOnly: true, classify: (p) => (p === '/w/hooks/check.sh' ? 'guarded' : undefined) }));
    const both = profiles.profile('/w')!;
    expect(both.writable).toEqual(['/w', '/x']);
    expect(both.readOnly).toEqual(['/w/hooks/check.sh']);
    expect(both.classify('/w/hooks/check.sh')).toBe('guarded');
    expect(both.allowedHosts).toEqual(['a.com']);
    expect(both.allowsHost!('a.com')).toBe(true);
    // Alone, its own folder is what is writable (as with no provider at all).
    const alone = new SandboxProfiles();
    alone.add(({ cwd }) => ({ writable: [cwd], readOnly: [], hidden: [], addsOnly: true, classify: () => undefined }));
    alone.add(({ cwd }) => ({ writable: [cwd], readOnly: ['/w/b.sh'], hidden: [], addsOnly: true, classify: () => undefined }));
    expect(alone.profile('/w')!.writable).toEqual(['/w']);
  });

  it('a provider that is not a function is refused at registration', () => {
    const profiles = new SandboxProfiles();
    expect(() => profiles.add('nope' as never)).toThrow(/must be a function/);
  });
});
