{-# LANGUAGE BangPatterns #-}
-- | Pipe: each group has one pipe, a writer unit and a reader unit. The
-- writer writes `messages` blocks of `size` bytes, then closes its end; the
-- reader reads until EOF, looping on short reads, and counts the bytes.
--
-- Each end is the pipe's descriptor as a GHC.IO.FD, the device beneath a
-- Handle, read and written through GHC.IO.Device's RawIO: every read(2)
-- asks for `size` bytes and every write(2) writes `size` (looping on short
-- writes), as in the other runtimes. (A Handle would read through its 8 KiB
-- buffer: read(2) asking 8192 bytes whenever `size` is smaller.) The
-- descriptors stay blocking, as a Handle leaves a pipe's: before each call
-- GHC asks poll(2) whether the descriptor is ready and, if not, parks the
-- thread in the threaded RTS's IO manager until it is; the call itself is
-- a safe foreign call.
module Workloads.Pipe (mechanisms) where

import Control.Concurrent.Async (concurrently, forConcurrently)
import Control.Exception (finally)
import Control.Monad (replicateM, replicateM_)
import Data.Char (ord)
import Data.Word (Word8)
import Foreign.ForeignPtr (ForeignPtr, mallocForeignPtrBytes, withForeignPtr)
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Marshal.Utils (fillBytes)
import qualified GHC.IO.Device as Device
import GHC.IO.FD (FD (..))
import System.Posix.IO (createPipe)

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", forkioPipe), ("async", asyncPipe)]

data Setup = Setup { groups, messages, size :: Int, block :: ForeignPtr Word8 }

prepare :: Params -> IO Setup
prepare params = do
  bytes <- int params "size"
  written <- mallocForeignPtrBytes bytes
  withForeignPtr written $ \p -> fillBytes p (fromIntegral (ord 'x')) bytes
  Setup <$> int params "groups" <*> int params "messages" <*> pure bytes <*> pure written

-- | A new pipe's (reader, writer) ends, blocking, as fdToHandle would make them.
pipeEnds :: IO (FD, FD)
pipeEnds = do
  (readFd, writeFd) <- createPipe
  pure (FD (fromIntegral readFd) 0, FD (fromIntegral writeFd) 0)

writeAll :: Setup -> FD -> IO ()
writeAll s writer =
  withForeignPtr (block s) (\p -> replicateM_ (messages s) (Device.write writer p 0 (size s)))
    `finally` Device.close writer

-- | The bytes read until EOF.
readAll :: Setup -> FD -> IO Int
readAll s reader = allocaBytes (size s) (loop 0) `finally` Device.close reader
  where
    loop !total buffer = do
      n <- Device.read reader buffer 0 (size s)
      if n == 0 then pure total else loop (total + n) buffer

-- | A forkIO thread per end, each awaited through its MVar.
forkioPipe :: Mechanism
forkioPipe params = do
  s <- prepare params
  pure Run
    { slots = 2 * groups s, counting = Stamped
    , timed = \census -> do
        ends <- replicateM (groups s) $ do
          (reader, writer) <- pipeEnds
          (,) <$> fork forkio census (writeAll s writer) <*> fork forkio census (readAll s reader)
        bytes <- foldStrict [awaitWriter >> awaitReader | (awaitWriter, awaitReader) <- ends]
        pure (Outcome [("bytes", bytes)] [])
    }

-- | The groups with forConcurrently, each group's two ends with
-- concurrently: Concurrently's <*> and concurrently each fork both of their
-- sides, two threads per group for each, counted by the RTS (Kit's header).
-- Group g's writer is in slot 2g, its reader in 2g + 1.
asyncPipe :: Mechanism
asyncPipe params = do
  s <- prepare params
  pure Run
    { slots = 2 * groups s, counting = Created
    , timed = \census -> do
        counts <- forConcurrently [0 .. groups s - 1] $ \g -> do
          (reader, writer) <- pipeEnds
          snd <$> concurrently (unit census (2 * g) (writeAll s writer))
                               (unit census (2 * g + 1) (readAll s reader))
        pure (Outcome [("bytes", sum counts)] [])
    }
