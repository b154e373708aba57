//! Zero allocations per request, proved over a real loopback socket: a counting global
//! allocator (only in this test binary) watches the whole process while the library's
//! [`serve`](fn@serve) answers 10,000 keep-alive requests on each endpoint.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};

use server_prebuilt::serve;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards to the system allocator with the caller's arguments
// unchanged; counting has no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller upholds `alloc`'s contract, which `System.alloc` shares.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: `ptr` and `layout` come from this allocator, which is `System` underneath.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` and `layout` come from this allocator, which is `System` underneath.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Sends `request` once and reads the whole answer, to learn its length.
fn probe(stream: &mut TcpStream, request: &[u8]) -> usize {
    stream.write_all(request).unwrap();
    // Exactly one answer per request.
    let answer = conformance::wire::read_exact(stream, 1, |_| false)
        .unwrap()
        .remove(0);
    assert!(answer.raw.starts_with(b"HTTP/1.1 "));
    answer.raw.len()
}

#[test]
fn no_allocation_per_request() {
    // The counter sees allocations at all (a check that cannot fail proves nothing).
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    std::hint::black_box(vec![0u8; 64]);
    assert!(ALLOCATIONS.load(Ordering::Relaxed) > before);

    let server = serve::workers::Background::local(serve).unwrap();
    let addr = server.addr();

    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_nodelay(true).unwrap();
    let requests: [&[u8]; 7] = [
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /api/hello HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /my/ip HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /api?name=A&lastname=B HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /api/private HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer bench-token\r\n\r\n",
    ];
    let mut report = Vec::new();
    for request in requests {
        let len = probe(&mut stream, request);
        let mut buf = vec![0u8; len];
        // Raw `read_exact` of the probed length, not the wire parser: the counter watches this
        // whole process, so the client must not allocate per request either.
        // Warm up: buffers reach their steady size, the date is rendered.
        for _ in 0..200 {
            stream.write_all(request).unwrap();
            stream.read_exact(&mut buf).unwrap();
        }
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        for _ in 0..10_000 {
            stream.write_all(request).unwrap();
            stream.read_exact(&mut buf).unwrap();
        }
        let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
        assert!(buf.starts_with(b"HTTP/1.1 "));
        report.push((String::from_utf8_lossy(request).into_owned(), allocations));
    }
    server.stop().unwrap();
    for (request, allocations) in &report {
        println!(
            "{allocations} allocations in 10,000 × {:?}",
            request.lines().next()
        );
    }
    assert!(report.iter().all(|(_, a)| *a == 0), "{report:?}");
}
