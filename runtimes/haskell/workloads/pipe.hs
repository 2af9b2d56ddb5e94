{-# LANGUAGE BangPatterns #-}
-- | Pipe: each group has one pipe, a writer unit and a reader unit. The
-- writer writes `messages` blocks of `size` bytes, then closes its end; the
-- reader reads until EOF, looping on short reads, and counts the bytes.
--
-- Both ends are Handles over the descriptors of createPipe. The descriptors
-- stay blocking: a Handle asks poll whether one is ready and, if not, parks
-- its thread in the threaded RTS's IO manager until it is.
module Workloads.Pipe (mechanisms) where

import Control.Concurrent.Async (concurrently, replicateConcurrently)
import Control.Exception (finally)
import Control.Monad (replicateM, replicateM_)
import Data.Char (ord)
import Data.Word (Word8)
import Foreign.ForeignPtr (ForeignPtr, mallocForeignPtrBytes, withForeignPtr)
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Marshal.Utils (fillBytes)
import System.IO
import System.Posix.IO (createPipe, fdToHandle)

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

-- | A new pipe's (reader, writer) Handles. The writer is unbuffered, so that
-- each block is one write(2), as in the other runtimes; the reader keeps its
-- Handle's buffer, which reads up to 8 KiB at a time.
pipeHandles :: IO (Handle, Handle)
pipeHandles = do
  (readFd, writeFd) <- createPipe
  reader <- fdToHandle readFd
  writer <- fdToHandle writeFd
  mapM_ (`hSetBinaryMode` True) [reader, writer]
  hSetBuffering writer NoBuffering
  pure (reader, writer)

writeAll :: Setup -> Handle -> IO ()
writeAll s writer =
  withForeignPtr (block s) (\p -> replicateM_ (messages s) (hPutBuf writer p (size s)))
    `finally` hClose writer

-- | The bytes read until EOF.
readAll :: Setup -> Handle -> IO Int
readAll s reader = allocaBytes (size s) (loop 0) `finally` hClose reader
  where
    loop !total buffer = do
      n <- hGetBufSome reader buffer (size s)
      if n == 0 then pure total else loop (total + n) buffer

-- | A forkIO thread per end, each awaited through its MVar.
forkioPipe :: Mechanism
forkioPipe params = do
  s <- prepare params
  pure $ do
    ends <- replicateM (groups s) $ do
      (reader, writer) <- pipeHandles
      (,) <$> fork forkio (writeAll s writer) <*> fork forkio (readAll s reader)
    bytes <- foldStrict [awaitWriter >> awaitReader | (awaitWriter, awaitReader) <- ends]
    pure (Outcome [("bytes", bytes)] (2 * groups s))

-- | The groups with replicateConcurrently, each group's two ends with
-- concurrently: Concurrently's <*> and concurrently each fork both of their
-- sides, two threads per group for each.
asyncPipe :: Mechanism
asyncPipe params = do
  s <- prepare params
  pure $ do
    counts <- replicateConcurrently (groups s) $ do
      (reader, writer) <- pipeHandles
      snd <$> concurrently (writeAll s writer) (readAll s reader)
    pure (Outcome [("bytes", sum counts)] (4 * groups s))
