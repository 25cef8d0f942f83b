// crypto.subtle's Ed448 and X448 (the Secure Curves draft, issue 34):
// import in every format, export, sign, verify, agree and deriveKey, with
// fixed keys (made by Node's generateKey for this test) so that the output
// is deterministic, compared byte for byte with Node's own Web Crypto
// (tests/all/workers.rs).
const KEYS = {
 "Ed4481": {
  "kty": "OKP",
  "crv": "Ed448",
  "x": "rtC1o6y22R2U501xWV-aRvauL8Z2B13Fl9mGXNUTCOyqsnxq0mvvF-j2j-8xZddUIxyKY4nMUBQA",
  "d": "L8jvVZeRPdZkLX1li5Qs32ecSlUnEOH70J4owTDPYiJZf9gQdnRjWF1XnyZMX82bqYPeQs3CIegS"
 },
 "Ed4482": {
  "kty": "OKP",
  "crv": "Ed448",
  "x": "dAtL4ZJzbnvD0HplzkosHhY4vO7FotA_37xjsMJJKZjQkfDHkQFxECDa7-yF7T2vHGhSljwPt-SA",
  "d": "pqmKq1-nr3Y3Mzflujp1M_DV9H86QDWqOsM4iqUWXtigb8VmQ1JDkxYdRCv1PrWbNMU2zo6nHjW8"
 },
 "X4481": {
  "kty": "OKP",
  "crv": "X448",
  "x": "yflDk4oyEK9we6OKa64SZ0laBQYKjaC_fIun0pSKNMQaj93QTG0XFIy32MH6OVST6DBpH741rDw",
  "d": "GOT2lqfMxvITvg8radycFl8kW2oTOHVvkVuIakvvIOqzDaAbHKyE6pd7WLSu0ha7UoevY0bbD9Y"
 },
 "X4482": {
  "kty": "OKP",
  "crv": "X448",
  "x": "8Gn4Yk2ueyFn3uJaKuFlcp0QXHjkUBv-NIjSv-P2vrS2QvuR0buGONhUAB8WfMs_VM4bQFAIJWA",
  "d": "jC4q2plpqMEoQ6Oklp4syrhXxT3TerekuH1Ha6CmxdbOuKVsVr66X01eaOZ5QBb2Nr7qVw3S-O4"
 }
};
const s = crypto.subtle;
const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
const bytes = (text) => new TextEncoder().encode(text);
const said = async (promise) => {
  try {
    return await promise;
  } catch (e) {
    return `${e.name}`;
  }
};
const pub = ({ kty, crv, x }) => ({ kty, crv, x });

export async function render() {
  const out = {};
  for (const i of [1, 2]) {
    const priv = await s.importKey('jwk', KEYS[`Ed448${i}`], { name: 'Ed448' }, true, ['sign']);
    const pubKey = await s.importKey('jwk', pub(KEYS[`Ed448${i}`]), { name: 'Ed448' }, true, ['verify']);
    const pkcs8 = await s.exportKey('pkcs8', priv);
    const spki = await s.exportKey('spki', pubKey);
    const raw = await s.exportKey('raw', pubKey);
    const signature = await s.sign({ name: 'Ed448' }, priv, bytes(`message ${i}`));
    const again = await s.importKey('pkcs8', pkcs8, 'Ed448', true, ['sign']);
    const fromRaw = await s.importKey('raw', raw, 'Ed448', true, ['verify']);
    out[`ed448-${i}`] = {
      pkcs8: hex(pkcs8),
      spki: hex(spki),
      raw: hex(raw),
      jwk: await s.exportKey('jwk', again),
      publicJwk: await s.exportKey('jwk', fromRaw),
      algorithm: priv.algorithm,
      usages: priv.usages,
      signature: hex(signature),
      verified: await s.verify('Ed448', fromRaw, signature, bytes(`message ${i}`)),
      other: await s.verify('Ed448', fromRaw, signature, bytes('another message')),
      short: await s.verify('Ed448', fromRaw, signature.slice(1), bytes(`message ${i}`)),
    };
  }
  const x = [];
  for (const i of [1, 2]) {
    x.push({
      priv: await s.importKey('jwk', KEYS[`X448${i}`], { name: 'X448' }, true, ['deriveBits', 'deriveKey']),
      pub: await s.importKey('jwk', pub(KEYS[`X448${i}`]), { name: 'X448' }, true, []),
    });
  }
  const spki = await s.exportKey('spki', x[1].pub);
  const peer = await s.importKey('spki', spki, 'X448', true, []);
  const aes = await s.deriveKey({ name: 'X448', public: x[0].pub }, x[1].priv, { name: 'AES-GCM', length: 256 }, true, ['encrypt']);
  out.x448 = {
    pkcs8: hex(await s.exportKey('pkcs8', x[0].priv)),
    spki: hex(spki),
    raw: hex(await s.exportKey('raw', peer)),
    jwk: await s.exportKey('jwk', x[0].priv),
    algorithm: x[0].priv.algorithm,
    shared: hex(await s.deriveBits({ name: 'X448', public: peer }, x[0].priv, 448)),
    sharedBack: hex(await s.deriveBits({ name: 'X448', public: x[0].pub }, x[1].priv, 448)),
    shared256: hex(await s.deriveBits({ name: 'X448', public: peer }, x[0].priv, 256)),
    derivedKey: hex(await s.exportKey('raw', aes)),
    tooMany: await said(s.deriveBits({ name: 'X448', public: peer }, x[0].priv, 512)),
    wrongCurve: await said(s.importKey('jwk', KEYS.X4481, { name: 'Ed448' }, true, ['sign'])),
    shortRaw: await said(s.importKey('raw', new Uint8Array(55), 'X448', true, [])),
  };
  return JSON.stringify(out, null, 1);
}
