{-# LANGUAGE BangPatterns #-}
-- | Echo: a server. Before the clock it listens on a loopback TCP port, or a
-- Unix stream socket in the scratch directory, and says where; in the run it
-- accepts `connections` connections and, on each, writes back every byte it
-- reads until the client closes, then closes it.
--
-- The network package's server, as its documentation writes an echo server:
-- the calling thread accepts, a thread per connection recvs what has arrived
-- (up to max(size, 4096) bytes) and sendAlls it back until recv returns
-- nothing (end of file). Its sockets are non-blocking: a thread that would
-- block waits in the threaded RTS's IO manager (epoll), as pipe's do.
module Workloads.Echo (mechanisms) where

import Control.Concurrent.Async (async, wait)
import Control.Exception (bracket, bracketOnError, finally)
import Control.Monad (forM, when)
import qualified Data.ByteString as B
import Data.IORef (IORef, atomicModifyIORef', newIORef, readIORef)
import Data.Maybe (isNothing)
import Network.Socket
import Network.Socket.ByteString (recv, sendAll)
import System.Directory (removePathForcibly)
import System.FilePath ((</>))

import Kit

-- | forkio: a thread per connection, awaited through its MVar (Kit's fork).
-- async: async and wait per connection. async forks one thread, which runs
-- the body under 'unit': every thread is a stamped unit, so both rows count
-- stamps. The RTS's count of created threads would add the threads it
-- starts after a collection to run finalizers: network closes a lost
-- Socket's descriptor in one, and the closed connections' are run so.
mechanisms :: [(String, Mechanism)]
mechanisms =
  [ ("forkio", echo (\census _ -> fork forkio census))
  , ("async", echo (\census i body -> wait <$> async (unit census i body)))
  ]

data Setup = Setup { connections, bufferSize :: Int, unixPath :: Maybe FilePath }

-- | Connections open at once and the most there were, moved by the
-- accepting thread (+1) and by each connection's thread as it closes (-1).
type Held = IORef (Int, Int)

opened, closed :: Held -> IO ()
opened held = atomicModifyIORef' held (\(now, most) -> ((now + 1, max most (now + 1)), ()))
closed held = atomicModifyIORef' held (\(now, most) -> ((now - 1, most), ()))

-- | The run's listener, untimed: a port on 127.0.0.1 the kernel picks, or
-- the Unix socket's path (a previous run's file removed first), with a
-- backlog of `connections`.
listenOn :: Setup -> IO Socket
listenOn s = do
  (family, address) <- case unixPath s of
    Nothing -> pure (AF_INET, SockAddrInet 0 (tupleToHostAddress (127, 0, 0, 1)))
    Just path -> (AF_UNIX, SockAddrUnix path) <$ removePathForcibly path
  bracketOnError (socket family Stream defaultProtocol) close $ \listener -> do
    bind listener address
    listen listener (connections s)
    pure listener

-- | Closes the listener and removes its path, after the clock.
closeListener :: Setup -> Socket -> IO ()
closeListener s listener = close listener >> mapM_ removePathForcibly (unixPath s)

-- | One connection: sends back what arrives until the client closes, then
-- closes it; the bytes sent back.
talk :: Setup -> Held -> Socket -> IO Int
talk s held connection = loop 0 `finally` (close connection >> closed held)
  where
    loop !echoed = do
      request <- recv connection (bufferSize s)
      if B.null request then pure echoed
      else sendAll connection request >> loop (echoed + B.length request)

-- | Given how connection i's thread starts (the action it returns awaits
-- its bytes).
echo :: (Census -> Int -> IO Int -> IO (IO Int)) -> Mechanism
echo start params = do
  n <- int params "connections"
  size <- int params "size"
  transport <- choice params "transport"
  dir <- scratch params
  let s = Setup n (max size 4096) (if transport == "unix" then Just (dir </> "echo.sock") else Nothing)
  pure Run
    { slots = n, counting = Stamped
    , timed = \census -> bracket (listenOn s) (closeListener s) $ \listener -> do
        held <- newIORef (0, 0)
        announce listener
        clocked census $ do
          served <- forM [0 .. n - 1] $ \i -> do
            (connection, _) <- accept listener
            -- TCP_NODELAY, as every echo server sets it: a reply leaves at once.
            when (isNothing (unixPath s)) (setSocketOption connection NoDelay 1)
            opened held
            start census i (talk s held connection)
          bytes <- foldStrict served
          most <- snd <$> readIORef held
          pure (Outcome [("connections", length served), ("bytes", bytes)] [("held", Just most)])
    }
