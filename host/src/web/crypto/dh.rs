//! `node:crypto`'s finite-field Diffie-Hellman, its primes, and ECDH on raw
//! keys (`createECDH`), beside `node.rs`:
//! - `nodeDh`: a private key and its public one for a prime and generator,
//!   a shared secret (padded to the prime's length), and OpenSSL's
//!   `DH_check` flags (Node's `verifyError`);
//! - `nodePrime`: `generatePrime` (safe, and `add`/`rem`) and `checkPrime`;
//! - `nodeEcdh`: a key pair, a private scalar's public point, a point in
//!   another form (compressed, uncompressed, hybrid), and the shared secret.
//!
//! Invariants: a prime is at most [`MAX_PRIME_BITS`]; a search for one
//! gives up after [`MAX_CANDIDATES`] candidates; every exponentiation has a
//! modulus within that bound and an exponent below it. These calls are
//! long (`engine::offload`), and their CPU time is the render's.

use super::*;
use rsa::BigUint;

/// The largest prime handled, as `workerd`'s (Node's is 2^31 - 1 bits).
pub const MAX_PRIME_BITS: u64 = 8192;

/// The largest prime made: beyond, a search takes seconds of the host's
/// time.
pub const MAX_GENERATED_BITS: u64 = 2048;

/// The candidates a search tries before it gives up.
pub const MAX_CANDIDATES: u32 = 1 << 22;

fn range_error(message: impl std::fmt::Display) -> String {
    error("RangeError", message)
}

fn fail(message: impl std::fmt::Display) -> String {
    error("Error", message)
}

/// Miller-Rabin rounds for a size, as OpenSSL chooses them (error below
/// 2^-80), and a Lucas test (num-bigint-dig's `probably_prime`).
fn rounds(bits: usize) -> usize {
    match bits {
        3747.. => 3,
        1345.. => 4,
        476.. => 5,
        400.. => 6,
        347.. => 7,
        308.. => 8,
        55.. => 27,
        _ => 34,
    }
}

fn is_prime(n: &BigUint, checks: usize) -> bool {
    let reps = if checks == 0 {
        rounds(n.bits())
    } else {
        checks
    };
    num_bigint_dig::prime::probably_prime(n, reps)
}

fn random_below_bits(bits: usize) -> Result<BigUint, String> {
    let mut bytes = vec![0u8; bits.div_ceil(8)];
    getrandom::fill(&mut bytes).map_err(operation_error)?;
    let extra = bytes.len() * 8 - bits;
    bytes[0] &= 0xff >> extra;
    // The top bit set: the number has exactly `bits` bits.
    bytes[0] |= 0x80 >> extra;
    Ok(BigUint::from_bytes_be(&bytes))
}

const SMALL_PRIMES: [u32; 300] = small_primes();

const fn small_primes() -> [u32; 300] {
    let mut out = [0u32; 300];
    let (mut n, mut count) = (3u32, 0);
    while count < 300 {
        let mut d = 3;
        let mut prime = true;
        while d * d <= n {
            if n % d == 0 {
                prime = false;
                break;
            }
            d += 2;
        }
        if prime {
            out[count] = n;
            count += 1;
        }
        n += 2;
    }
    out
}

/// A random prime of `bits` bits with `p % add == rem` (`given`; else
/// odd, with its top two bits set, as OpenSSL's are: a 3-bit prime is 7),
/// and `(p - 1) / 2` prime too where `safe`. The candidates step by `add`
/// from a random start; a small prime that divides one (or its half) is
/// seen from residues, before any test.
fn generate_prime(
    bits: u64,
    safe: bool,
    given: Option<(&BigUint, &BigUint)>,
) -> Result<BigUint, String> {
    use num_traits::{One, ToPrimitive, Zero};
    let (two, one) = (BigUint::from(2u32), BigUint::one());
    let (add, rem) = given.unwrap_or((&two, &one));
    if bits > MAX_GENERATED_BITS {
        return Err(range_error(format!(
            "ssr makes primes of at most {MAX_GENERATED_BITS} bits, not {bits}"
        )));
    }
    let min_bits = if safe { 3 } else { 2 };
    if bits < min_bits {
        return Err(range_error(format!(
            "a prime of {bits} bits cannot be made"
        )));
    }
    if add.is_zero() || rem >= add || add.bits() as u64 > bits {
        return Err(range_error("invalid options.add or options.rem"));
    }
    // Every candidate odd: an even `add` and an odd `rem` (else none, or
    // only every other one, could be prime; OpenSSL refuses these too).
    if (add % &two).is_one() || (rem % &two).is_zero() {
        return Err(range_error("options.add must be even and options.rem odd"));
    }
    let bits = bits as usize;
    for _ in 0..64 {
        let mut start = random_below_bits(bits)?;
        if given.is_none() {
            start |= &one << (bits - 2);
        }
        // The first candidate ≡ rem (mod add) at or above `start`.
        let mut p = &start - (&start % add) + rem;
        if p < start {
            p += add;
        }
        let residues: Vec<(u32, u32, u32)> = SMALL_PRIMES
            .iter()
            .map(|&sp| {
                let m = BigUint::from(sp);
                let r = (&p % &m).to_u32().unwrap_or(0);
                let step = (add % &m).to_u32().unwrap_or(0);
                (sp, r, step)
            })
            .collect();
        for i in 0..MAX_CANDIDATES / 64 {
            let divisible = residues.iter().any(|&(sp, r, step)| {
                let at = ((r as u64 + step as u64 * i as u64) % sp as u64) as u32;
                // p, or (p - 1) / 2 for a safe prime (2q + 1 ≡ 0 ⇔ p ≡ 0;
                // q ≡ 0 ⇔ p ≡ 1).
                at == 0 || (safe && at == 1)
            });
            let candidate = &p + add * BigUint::from(i);
            if candidate.bits() != bits {
                break;
            }
            if divisible && candidate.bits() > 12 {
                continue;
            }
            if safe && !is_prime(&((&candidate - &one) >> 1), 1) {
                continue;
            }
            if is_prime(&candidate, 0) && (!safe || is_prime(&((&candidate - &one) >> 1), 0)) {
                return Ok(candidate);
            }
        }
    }
    Err(fail("no prime was found (the search gave up)"))
}

/// OpenSSL's `DH_check` flags: 1 p not prime, 2 p not a safe prime, 4 the
/// generator cannot be checked, 8 it is not suitable.
fn dh_check(p: &BigUint, g: &BigUint) -> u32 {
    use num_traits::ToPrimitive;
    let mut flags = 0;
    match g.to_u32() {
        Some(2) if (p % 24u32).to_u32() != Some(11) => flags |= 8,
        Some(5) if !matches!((p % 10u32).to_u32(), Some(3 | 7)) => flags |= 8,
        Some(2 | 5) => {}
        _ => flags |= 4,
    }
    if !is_prime(p, 0) {
        flags |= 1;
    } else if !is_prime(&(p >> 1), 0) {
        flags |= 2;
    }
    flags
}

/// `nodeDh` (`a.mode`): `generate` (parts: p, g, and a private key or
/// none) gives the private and public keys; `compute` (p, g, private,
/// peer) the shared secret; `check` (p, g) the flags.
pub(super) fn diffie_hellman<'a>(
    a: &Args,
    parts: &dyn Fn(usize) -> &'a [u8],
) -> Result<Reply, String> {
    use num_traits::{One, Zero};
    let p = BigUint::from_bytes_be(parts(0));
    let g = BigUint::from_bytes_be(parts(1));
    if p.bits() as u64 > MAX_PRIME_BITS {
        return Err(range_error(format!(
            "the prime is larger than {MAX_PRIME_BITS} bits"
        )));
    }
    if p <= BigUint::from(2u32) || g.is_zero() || g.is_one() || g >= p {
        return Err(fail("Invalid Diffie-Hellman parameters"));
    }
    let size = p.bits().div_ceil(8);
    let pad = |n: BigUint| {
        let bytes = n.to_bytes_be();
        let mut out = vec![0; size.saturating_sub(bytes.len())];
        out.extend(bytes);
        out
    };
    match a.mode.as_str() {
        "check" => Ok(value(json!(dh_check(&p, &g)))),
        "generate" => {
            let given = parts(2);
            let private = if given.is_empty() {
                // 1 < x < p - 1, as many bits as the prime.
                loop {
                    let x = random_below_bits(p.bits())? % &p;
                    if x > BigUint::one() {
                        break x;
                    }
                }
            } else {
                BigUint::from_bytes_be(given)
            };
            if private.bits() > p.bits() {
                return Err(fail("the private key is larger than the prime"));
            }
            let public = g.modpow(&private, &p);
            let private = private.to_bytes_be();
            let public = public.to_bytes_be();
            let value = json!({ "parts": [private.len(), public.len()] }).to_string();
            Ok(Reply {
                value,
                data: [private, public].concat(),
            })
        }
        "compute" => {
            let private = BigUint::from_bytes_be(parts(2));
            let peer = BigUint::from_bytes_be(parts(3));
            if peer <= BigUint::one() {
                return Err(fail("Supplied key is too small"));
            }
            if peer >= &p - BigUint::one() {
                return Err(fail("Supplied key is too large"));
            }
            if private.bits() > p.bits() {
                return Err(fail("the private key is larger than the prime"));
            }
            Ok(bytes(pad(peer.modpow(&private, &p))))
        }
        other => Err(format!("crypto: no Diffie-Hellman operation \"{other}\"")),
    }
}

/// `nodePrime` (`a.mode`): `generate` (`a.length` bits; `a.safe`; parts
/// add and rem, or empty) gives the prime; `check` (part: the candidate)
/// whether it is one, with `a.iterations` rounds (0: OpenSSL's choice).
pub(super) fn prime<'a>(a: &Args, parts: &dyn Fn(usize) -> &'a [u8]) -> Result<Reply, String> {
    match a.mode.as_str() {
        "generate" => {
            let add = parts(0);
            let rem = parts(1);
            let given = if add.is_empty() {
                None
            } else {
                let (add, rem) = (BigUint::from_bytes_be(add), BigUint::from_bytes_be(rem));
                Some((add, rem))
            };
            if a.length as u64 > MAX_PRIME_BITS {
                return Err(range_error(format!(
                    "The value of \"size\" is out of range. It must be <= {MAX_PRIME_BITS}. Received {}",
                    a.length
                )));
            }
            Ok(bytes(
                generate_prime(a.length as u64, a.safe, given.as_ref().map(|(a, r)| (a, r)))?
                    .to_bytes_be(),
            ))
        }
        "check" => {
            let n = BigUint::from_bytes_be(parts(0));
            if n.bits() as u64 > MAX_PRIME_BITS {
                return Err(range_error(format!(
                    "the candidate is larger than {MAX_PRIME_BITS} bits"
                )));
            }
            let checks = (a.iterations as usize).min(64);
            Ok(value(Value::Bool(
                n > BigUint::from(1u32) && is_prime(&n, checks),
            )))
        }
        other => Err(format!("crypto: no prime operation \"{other}\"")),
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn args(mode: &str) -> Args {
        Args {
            mode: mode.into(),
            ..Args::default()
        }
    }

    fn diffie_hellman_and_primes_answer_the_textbook_cases() {
        // p = 23, g = 5: private 4 gives public 4, private 3 gives 10, and
        // both agree on 18 (padded to the prime's one byte).
        let run = |mode: &str, given: &[&[u8]]| {
            diffie_hellman(&args(mode), &|i| given.get(i).copied().unwrap_or_default())
        };
        let pair = run("generate", &[&[23], &[5], &[4]]).unwrap();
        assert_eq!(pair.data, vec![4, 4]);
        let shared = run("compute", &[&[23], &[5], &[4], &[10]]).unwrap();
        assert_eq!(shared.data, vec![18]);
        let check = run("check", &[&[23], &[5]]).unwrap();
        assert_eq!(check.value, "0");
        // A peer key of 1 or p - 1 is refused.
        for peer in [1u8, 22] {
            assert!(run("compute", &[&[23], &[5], &[4], &[peer]]).is_err());
        }
        assert!(is_prime(&((BigUint::from(1u32) << 127) - 1u32), 0));
        assert!(!is_prime(&BigUint::from(561u32), 0));
        // A safe prime of 64 bits, ≡ 11 (mod 24) as asked.
        let (add, rem) = (BigUint::from(24u32), BigUint::from(11u32));
        let p = generate_prime(64, true, Some((&add, &rem))).unwrap();
        assert_eq!(p.bits(), 64);
        assert_eq!(&p % 24u32, BigUint::from(11u32));
        assert!(is_prime(&p, 0) && is_prime(&(&p >> 1), 0));
        let err = generate_prime(MAX_GENERATED_BITS + 1, false, None).unwrap_err();
        assert!(err.starts_with("RangeError: "), "{err}");
        // Its top two bits set, as OpenSSL's: of 3 bits, 7 (never 5).
        for _ in 0..20 {
            assert_eq!(generate_prime(3, false, None).unwrap(), BigUint::from(7u32));
        }
    }

    crate::unit_tests!(diffie_hellman_and_primes_answer_the_textbook_cases);
}
