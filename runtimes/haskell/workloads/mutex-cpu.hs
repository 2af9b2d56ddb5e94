-- | Mutex, CPU-bound: each group has one lock and one counter; each of its
-- `workers` units, `iterations` times, locks, matches /foo(.+)$/ against
-- "foobar" * 100, adds the length of the capture (597) and unlocks.
--
-- The engine is regex-pcre (libpcre, without its JIT), the pattern compiled
-- once before the timing. Its execute is an IO action, so every match runs:
-- a pure match of two constants could be computed once and shared.
module Workloads.MutexCpu (mechanisms) where

import Control.Concurrent.MVar (newMVar, withMVar)
import Control.Concurrent.STM
import Control.Exception (mask, onException, throwIO)
import Control.Monad (replicateM, replicateM_)
import Data.Array ((!))
import qualified Data.ByteString.Char8 as B
import Data.IORef (modifyIORef', newIORef, readIORef)
import Text.Regex.PCRE.ByteString (compBlank, compile, execBlank, execute)

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", mutexCpu forkio mvarGroup), ("stm", mutexCpu stm tmvarGroup)]

-- | A group's lock and counter: enter runs an action under the lock and adds
-- what it returns to the counter.
data Group = Group { enter :: IO Int -> IO (), counted :: IO Int }

-- | An MVar () as the lock, an IORef as the counter.
mvarGroup :: IO Group
mvarGroup = do
  lock <- newMVar ()
  counter <- newIORef 0
  pure Group
    { enter = \action -> withMVar lock $ \() -> action >>= \n -> modifyIORef' counter (+ n)
    , counted = readIORef counter
    }

-- | A TMVar () as the lock, a TVar as the counter: adding and unlocking are
-- one transaction.
tmvarGroup :: IO Group
tmvarGroup = do
  lock <- newTMVarIO ()
  counter <- newTVarIO 0
  pure Group
    { enter = \action -> mask $ \restore -> do
        atomically (takeTMVar lock)
        n <- restore action `onException` atomically (putTMVar lock ())
        atomically (modifyTVar' counter (+ n) >> putTMVar lock ())
    , counted = readTVarIO counter
    }

-- | The length of the capture, by a fresh match each time.
captureLength :: IO (IO Int)
captureLength = do
  compiled <- compile compBlank execBlank (B.pack "foo(.+)$")
  pattern <- either (\(_, e) -> throwIO (KitError ("pcre compile: " ++ e))) pure compiled
  let subject = B.concat (replicate 100 (B.pack "foobar"))
  pure $ execute pattern subject >>= \matched -> case matched of
    Right (Just captures) -> pure $! snd (captures ! 1)
    Right Nothing -> throwIO (KitError "pcre: no match")
    Left (_, e) -> throwIO (KitError ("pcre execute: " ++ e))

mutexCpu :: Prims -> IO Group -> Mechanism
mutexCpu prims newGroup params = do
  groups <- int params "groups"
  workers <- int params "workers"
  iterations <- int params "iterations"
  match <- captureLength
  pure $ do
    gs <- replicateM groups newGroup
    awaits <- sequence [fork prims (replicateM_ iterations (enter g match)) | g <- gs, _ <- [1 .. workers]]
    sequence_ awaits
    total <- foldStrict (map counted gs)
    pure (Outcome [("sum", total)] (groups * workers))
