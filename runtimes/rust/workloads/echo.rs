// Echo server (workloads/echo.toml): before each run the server opens its
// listening socket (TCP on 127.0.0.1, at a port the kernel picks, or a Unix
// socket in the scratch directory) and says where (Run::listening); in the
// run it accepts `connections` connections, the load generator's, and on
// each writes back every byte it reads until the client closes, then closes
// it. The run ends when every connection is closed and its unit has ended.
//
// The caller accepts each connection and starts a unit to serve it, and
// stops accepting after `connections`; it counts each connection as it
// accepts it, and the unit serving it counts it as it closes it: `held` is
// the most open at once.
// The listener is std's, made with socket2 before the clocks, with a backlog
// of the run's connections (std's TcpListener::bind listens with 128), and
// handed to each runtime as its listener is fed one (from_std); it comes
// back to the caller when the work ends, to be closed after the clocks.
use std::fs;
use std::future::Future;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread;

use monoio::io::{AsyncReadRent, AsyncWriteRent, AsyncWriteRentExt};
use smol::io::{AsyncReadExt as _, AsyncWriteExt as _};
use socket2::{Domain, SockAddr, Socket, Type};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::kit::{Mechanism, Result, Run};
use crate::shared::executor::Spawner;
use crate::shared::monoio as monoio_tasks;
use crate::shared::smol as smol_tasks;
use crate::shared::tasks::{self, Flavor};
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", |run| serve(run, Threads)),
    ("tokio", |run| serve(run, Tasks(Flavor::MultiThread))),
    ("tokio_ct", |run| serve(run, Tasks(Flavor::CurrentThread))),
    ("smol", |run| serve(run, Smol)),
    ("monoio", |run| serve(run, Monoio)),
];

/// A mechanism's server, generic over the transport's listener: a trait, so
/// that one value serves with either.
trait Server {
    fn serve<L: Listener>(self, run: &mut Run, listening: Listening<L>) -> Result;
}

/// Opens the run's listener, of its transport, and serves on it.
fn serve(run: &mut Run, server: impl Server) -> Result {
    match run.choice("transport") {
        "tcp" => server.serve(run, TcpListener::open(run)?),
        "unix" => server.serve(run, UnixListener::open(run)?),
        transport => Err(format!("unknown transport {transport:?}").into()),
    }
}

/// A listener of std's, opened before the clocks, and where it listens.
struct Listening<L> {
    listener: L,
    address: Address,
}

/// Where a listener listens, as the run announces it; a Unix socket's file
/// is removed when the address is dropped, after the clocks (a failure to
/// is harmless: the next run removes what it finds there).
struct Address {
    announced: String,
    file: Option<PathBuf>,
}

impl Drop for Address {
    fn drop(&mut self) {
        if let Some(file) = &self.file {
            let _ = fs::remove_file(file);
        }
    }
}

/// A stream socket bound to `address`, listening with a backlog of the run's
/// connections, which the kernel caps at net.core.somaxconn (the generator
/// tries a refused connection again). socket2's socket is close-on-exec, as
/// std's.
fn listen(run: &Run, domain: Domain, address: &SockAddr) -> io::Result<Socket> {
    let backlog = i32::try_from(run.count("connections")).unwrap_or(i32::MAX);
    let socket = Socket::new(domain, Type::STREAM, None)?;
    socket.bind(address)?;
    socket.listen(backlog)?;
    Ok(socket)
}

/// A read takes what is there, a request at least, and no less than a page.
fn buffer_size(run: &Run) -> usize {
    run.count("size").max(4096)
}

/// A transport's listener as std makes it, and the listener each async
/// runtime makes of it.
trait Listener: Sized + Send + 'static {
    type Stream: Read + Write + Send + 'static;
    type Tokio: TokioListener;
    type Smol: SmolListener;
    type Monoio: MonoioListener;

    fn open(run: &Run) -> io::Result<Listening<Self>>;
    /// The next connection, ready to serve (TCP_NODELAY on TCP, as echo
    /// servers set it: a small reply leaves at once, not held back until
    /// the last one is acknowledged).
    fn accept_connection(&self) -> io::Result<Self::Stream>;
    /// On the runtime (Runtime::enter): tokio registers it with its reactor.
    fn into_tokio(self) -> io::Result<Self::Tokio>;
    fn into_smol(self) -> io::Result<Self::Smol>;
    fn into_monoio(self) -> io::Result<Self::Monoio>;
}

impl Listener for TcpListener {
    type Stream = TcpStream;
    type Tokio = tokio::net::TcpListener;
    type Smol = smol::net::TcpListener;
    type Monoio = monoio::net::TcpListener;

    fn open(run: &Run) -> io::Result<Listening<Self>> {
        let port_0 = SocketAddr::from((Ipv4Addr::LOCALHOST, 0)); // the kernel picks
        let listener = TcpListener::from(listen(run, Domain::IPV4, &port_0.into())?);
        let announced = format!("tcp:{}", listener.local_addr()?);
        let address = Address { announced, file: None };
        Ok(Listening { listener, address })
    }

    fn accept_connection(&self) -> io::Result<TcpStream> {
        let (stream, _) = self.accept()?;
        stream.set_nodelay(true)?;
        Ok(stream)
    }

    fn into_tokio(self) -> io::Result<Self::Tokio> {
        self.set_nonblocking(true)?; // from_std leaves that to the caller
        tokio::net::TcpListener::from_std(self)
    }

    fn into_smol(self) -> io::Result<Self::Smol> {
        self.try_into()
    }

    fn into_monoio(self) -> io::Result<Self::Monoio> {
        monoio::net::TcpListener::from_std(self)
    }
}

impl Listener for UnixListener {
    type Stream = UnixStream;
    type Tokio = tokio::net::UnixListener;
    type Smol = smol::net::unix::UnixListener;
    type Monoio = monoio::net::UnixListener;

    fn open(run: &Run) -> io::Result<Listening<Self>> {
        let path = run.scratch().join("echo.sock");
        // An earlier run's file, if it was left, would fail the bind.
        match fs::remove_file(&path) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(err),
            _ => {}
        }
        let listener = UnixListener::from(listen(run, Domain::UNIX, &SockAddr::unix(&path)?)?);
        let announced = format!("unix:{}", path.display());
        let address = Address { announced, file: Some(path) };
        Ok(Listening { listener, address })
    }

    fn accept_connection(&self) -> io::Result<UnixStream> {
        Ok(self.accept()?.0)
    }

    fn into_tokio(self) -> io::Result<Self::Tokio> {
        self.set_nonblocking(true)?; // from_std leaves that to the caller
        tokio::net::UnixListener::from_std(self)
    }

    fn into_smol(self) -> io::Result<Self::Smol> {
        self.try_into()
    }

    fn into_monoio(self) -> io::Result<Self::Monoio> {
        monoio::net::UnixListener::from_std(self)
    }
}

/// The connections the server accepted, and the most open at once (the
/// evidence `held`): the caller counts each as it accepts it, the unit
/// serving it as it closes it.
#[derive(Default)]
struct Connections {
    accepted: AtomicI64,
    open: AtomicI64,
    held: AtomicI64,
}

impl Connections {
    fn accepted(&self) {
        self.accepted.fetch_add(1, Relaxed);
        // As Units::start counts live units: every value open takes is one
        // that fetch_add returns, so their maximum is the peak.
        let open = self.open.fetch_add(1, Relaxed) + 1;
        self.held.fetch_max(open, Relaxed);
    }

    fn closed(&self) {
        self.open.fetch_sub(1, Relaxed);
    }

    /// Read after every unit is awaited, which orders the counts before.
    fn report(&self, run: &mut Run, bytes: u64) {
        run.result("connections", self.accepted.load(Relaxed));
        run.result("bytes", bytes as i64);
        run.evidence("held", self.held.load(Relaxed));
    }
}

/// A thread per connection, blocking in its reads and writes; the caller
/// is the acceptor, blocking in accept.
struct Threads;

impl Server for Threads {
    fn serve<L: Listener>(self, run: &mut Run, Listening { listener, address }: Listening<L>) -> Result {
        let (connections, buffer) = (run.count("connections"), buffer_size(run));
        let (units, tally) = (run.units(), Connections::default());
        run.listening(&address.announced)?;
        let bytes = run.timed(|| {
            thread::scope(|scope| -> Result<u64> {
                let mut served = Vec::with_capacity(connections);
                for _ in 0..connections {
                    // On an early return the scope still joins the units
                    // started: each serves its connection to its end.
                    let stream = listener.accept_connection()?;
                    tally.accepted();
                    let tally = &tally;
                    served.push(threads::spawn(scope, &units, move || {
                        let echoed = echo(stream, buffer);
                        tally.closed();
                        echoed
                    })?);
                }
                Ok(served.into_iter().map(threads::join).sum::<io::Result<u64>>()?)
            })
        })?;
        tally.report(run, bytes);
        Ok(())
    }
}

/// Writes back what it reads until end of file, then closes the connection
/// (drops it): the bytes written back.
fn echo(mut stream: impl Read + Write, buffer: usize) -> io::Result<u64> {
    let mut buffer = vec![0; buffer];
    let mut echoed = 0;
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => return Ok(echoed),
            Ok(n) => {
                stream.write_all(&buffer[..n])?; // loops on short writes
                echoed += n as u64;
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}

/// A transport's listener of tokio's.
trait TokioListener: Send + 'static {
    type Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static;
    fn accept_connection(&self) -> impl Future<Output = io::Result<Self::Stream>> + Send;
}

impl TokioListener for tokio::net::TcpListener {
    type Stream = tokio::net::TcpStream;

    async fn accept_connection(&self) -> io::Result<Self::Stream> {
        let (stream, _) = self.accept().await?;
        stream.set_nodelay(true)?;
        Ok(stream)
    }
}

impl TokioListener for tokio::net::UnixListener {
    type Stream = tokio::net::UnixStream;

    async fn accept_connection(&self) -> io::Result<Self::Stream> {
        Ok(self.accept().await?.0)
    }
}

/// A task per connection on tokio's runtime, with tokio::net's sockets,
/// registered with its reactor; the caller is a task too (on_a_task).
struct Tasks(Flavor);

impl Server for Tasks {
    fn serve<L: Listener>(self, run: &mut Run, Listening { listener, address }: Listening<L>) -> Result {
        let (connections, buffer) = (run.count("connections"), buffer_size(run));
        let (units, tally) = (run.units(), Arc::new(Connections::default()));
        let runtime = tasks::runtime(run, self.0)?;
        let listener = {
            let _on_the_runtime = runtime.enter();
            listener.into_tokio()?
        };
        let work = {
            let tally = Arc::clone(&tally);
            async move {
                let mut served = Vec::with_capacity(connections);
                for _ in 0..connections {
                    let stream = listener.accept_connection().await?;
                    tally.accepted();
                    let tally = Arc::clone(&tally);
                    served.push(tasks::spawn(&units, async move {
                        let echoed = echo_async(stream, buffer).await;
                        tally.closed();
                        echoed
                    }));
                }
                let mut bytes = 0;
                for connection in served {
                    bytes += tasks::join(connection).await?;
                }
                Ok::<_, io::Error>((bytes, listener))
            }
        };
        run.listening(&address.announced)?;
        let (bytes, listener) = run.timed(|| tasks::on_a_task(&runtime, work))?;
        drop(listener);
        drop(runtime); // waits for its threads
        tally.report(run, bytes);
        Ok(())
    }
}

async fn echo_async(mut stream: impl AsyncRead + AsyncWrite + Unpin, buffer: usize) -> io::Result<u64> {
    let mut buffer = vec![0; buffer];
    let mut echoed = 0;
    loop {
        match stream.read(&mut buffer).await? {
            0 => return Ok(echoed),
            n => {
                stream.write_all(&buffer[..n]).await?;
                echoed += n as u64;
            }
        }
    }
}

/// A transport's listener of smol's (smol::net, async-net's: a std listener
/// in smol::Async, registered with async-io's reactor as it is made).
trait SmolListener: Send + 'static {
    type Stream: smol::io::AsyncRead + smol::io::AsyncWrite + Unpin + Send + 'static;
    fn accept_connection(&self) -> impl Future<Output = io::Result<Self::Stream>> + Send;
}

impl SmolListener for smol::net::TcpListener {
    type Stream = smol::net::TcpStream;

    async fn accept_connection(&self) -> io::Result<Self::Stream> {
        let (stream, _) = self.accept().await?;
        stream.set_nodelay(true)?;
        Ok(stream)
    }
}

impl SmolListener for smol::net::unix::UnixListener {
    type Stream = smol::net::unix::UnixStream;

    async fn accept_connection(&self) -> io::Result<Self::Stream> {
        Ok(self.accept().await?.0)
    }
}

/// A smol task per connection, on the kit's smol executor; the caller is a
/// task too (Runtime::block_on).
struct Smol;

impl Server for Smol {
    fn serve<L: Listener>(self, run: &mut Run, Listening { listener, address }: Listening<L>) -> Result {
        let (connections, buffer) = (run.count("connections"), buffer_size(run));
        let tally = Arc::new(Connections::default());
        let runtime = smol_tasks::Runtime::new(run)?;
        let tasks = runtime.tasks(run);
        let listener = listener.into_smol()?;
        let work = {
            let tally = Arc::clone(&tally);
            async move {
                let mut served = Vec::with_capacity(connections);
                for _ in 0..connections {
                    // On an early return the units started are dropped,
                    // which cancels them.
                    let stream = listener.accept_connection().await?;
                    tally.accepted();
                    let tally = Arc::clone(&tally);
                    served.push(tasks.spawn(async move {
                        let echoed = echo_smol(stream, buffer).await;
                        tally.closed();
                        echoed
                    }));
                }
                let mut bytes = 0;
                for connection in served {
                    bytes += connection.await?;
                }
                Ok::<_, io::Error>((bytes, listener))
            }
        };
        run.listening(&address.announced)?;
        let (bytes, listener) = run.timed(|| runtime.block_on(work))?;
        drop(listener);
        drop(runtime); // stops and joins its runners
        tally.report(run, bytes);
        Ok(())
    }
}

async fn echo_smol(
    mut stream: impl smol::io::AsyncRead + smol::io::AsyncWrite + Unpin,
    buffer: usize,
) -> io::Result<u64> {
    let mut buffer = vec![0; buffer];
    let mut echoed = 0;
    loop {
        match stream.read(&mut buffer).await? {
            0 => return Ok(echoed),
            n => {
                stream.write_all(&buffer[..n]).await?;
                echoed += n as u64;
            }
        }
    }
}

/// A transport's listener of monoio's: its accept is an io_uring ACCEPT.
trait MonoioListener: 'static {
    type Stream: AsyncReadRent + AsyncWriteRent + 'static;
    async fn accept_connection(&self) -> io::Result<Self::Stream>;
}

impl MonoioListener for monoio::net::TcpListener {
    type Stream = monoio::net::TcpStream;

    async fn accept_connection(&self) -> io::Result<Self::Stream> {
        let (stream, _) = self.accept().await?;
        stream.set_nodelay(true)?;
        Ok(stream)
    }
}

impl MonoioListener for monoio::net::UnixListener {
    type Stream = monoio::net::UnixStream;

    async fn accept_connection(&self) -> io::Result<Self::Stream> {
        Ok(self.accept().await?.0)
    }
}

/// A monoio task per connection, on the trial's thread; the caller is the
/// future monoio blocks on.
struct Monoio;

impl Server for Monoio {
    fn serve<L: Listener>(self, run: &mut Run, Listening { listener, address }: Listening<L>) -> Result {
        let (connections, buffer) = (run.count("connections"), buffer_size(run));
        let (units, tally) = (run.units(), Arc::new(Connections::default()));
        let mut runtime = monoio_tasks::Runtime::new(run)?;
        let listener = listener.into_monoio()?;
        let work = {
            let tally = Arc::clone(&tally);
            async move {
                let mut served = Vec::with_capacity(connections);
                for _ in 0..connections {
                    let stream = listener.accept_connection().await?;
                    tally.accepted();
                    let tally = Arc::clone(&tally);
                    served.push(monoio_tasks::spawn(&units, async move {
                        let echoed = echo_monoio(stream, buffer).await;
                        tally.closed();
                        echoed
                    }));
                }
                let mut bytes = 0;
                for connection in served {
                    bytes += connection.await?;
                }
                Ok::<_, io::Error>((bytes, listener))
            }
        };
        run.listening(&address.announced)?;
        let (bytes, listener) = run.timed(|| runtime.block_on(work))?;
        drop(listener);
        drop(runtime);
        tally.report(run, bytes);
        Ok(())
    }
}

/// A read is an io_uring RECV into the buffer, which it takes and gives back
/// holding what came (monoio's "rent" I/O); write_all sends that back, in
/// as many io_uring SENDs as it takes.
async fn echo_monoio(mut stream: impl AsyncReadRent + AsyncWriteRent, buffer: usize) -> io::Result<u64> {
    let mut buffer = Vec::with_capacity(buffer);
    let mut echoed = 0;
    loop {
        let (read, back) = stream.read(buffer).await;
        match read? {
            0 => return Ok(echoed),
            n => {
                let (written, back) = stream.write_all(back).await;
                written?;
                buffer = back;
                echoed += n as u64;
            }
        }
    }
}
