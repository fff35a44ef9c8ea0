//! Small helpers over a non-blocking tokio socket, shared by the engine's connections and
//! the reference servers (`gqlbench-servers`).

use std::io;
use std::os::fd::{AsFd, AsRawFd};

use tokio::io::Interest;
use tokio::net::TcpStream;

/// Writes all of `data`, waiting for socket space as needed. It borrows the socket, so a
/// task may keep a readiness wait on the same socket pinned across calls.
pub async fn write_all(tcp: &TcpStream, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        match tcp.try_write(data) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => tcp.writable().await?,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Marks the socket not readable without a syscall. Call it only right after a read that
/// returned less than asked, i.e. when the kernel buffer was empty at that moment: any later
/// arrival raises a new edge in epoll, so no data can be missed, and the next read attempt
/// waits for that edge instead of issuing a `read` just to learn `EWOULDBLOCK`.
pub fn clear_read_readiness(tcp: &TcpStream) {
    let _ = tcp.try_io(Interest::READABLE, || {
        Err::<(), _>(io::ErrorKind::WouldBlock.into())
    });
}

/// Sets a socket option (`setsockopt`) whose value is `value` (a C integer or struct).
pub fn set_socket_option<T: Copy>(
    sock: &impl AsFd,
    level: libc::c_int,
    name: libc::c_int,
    value: &T,
) -> io::Result<()> {
    // SAFETY: the descriptor is borrowed open for the call; the kernel reads exactly
    // `size_of::<T>()` bytes of `value`, which lives for the call.
    let rc = unsafe {
        libc::setsockopt(
            sock.as_fd().as_raw_fd(),
            level,
            name,
            (value as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_more_than_the_socket_buffer_holds() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = l.local_addr().unwrap();
            let (client, server) = tokio::join!(TcpStream::connect(addr), l.accept());
            let (client, (mut server, _)) = (client.unwrap(), server.unwrap());
            // Several MiB: the write must wait for the reader more than once.
            let data: Vec<u8> = (0..8 << 20).map(|i| (i % 251) as u8).collect();
            let reader = async {
                use tokio::io::AsyncReadExt;
                let mut got = Vec::new();
                server.read_to_end(&mut got).await.unwrap();
                got
            };
            let writer = async {
                write_all(&client, &data).await.unwrap();
                drop(client);
            };
            let (got, ()) = tokio::join!(reader, writer);
            assert_eq!(got.len(), data.len());
            assert!(got == data, "bytes arrived changed or out of order");
        });
    }

    #[test]
    fn a_socket_option_set_reads_back() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let s = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        assert!(!s.nodelay().unwrap());
        set_socket_option(
            &s,
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            &(1 as libc::c_int),
        )
        .unwrap();
        assert!(s.nodelay().unwrap());
        let bad = set_socket_option(&s, libc::SOL_SOCKET, -1, &(1 as libc::c_int));
        assert!(bad.is_err(), "an unknown option is refused");
    }
}
