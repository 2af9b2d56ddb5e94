{-# LANGUAGE LambdaCase, OverloadedStrings, ScopedTypeVariables #-}
-- | The concbench Haskell kit: reads one request (JSON) on stdin, runs the
-- mechanism warmup + runs times, prints one response line (JSON) on stdout.
-- A floor request is answered at once, nothing run. Each run reports its
-- units, peak_live and evidence (Kit's header says how they are counted).
-- With --library PACKAGE, it says which version of an optional package it
-- was built with instead.
-- See docs/protocol.md; Kit.hs is what the workload files see.
module Main (main) where

import Control.Concurrent (forkIO, getNumCapabilities)
import Control.Concurrent.MVar (newEmptyMVar, putMVar, takeMVar)
import Control.DeepSeq (force)
import Control.Exception (SomeException, displayException, evaluate, throwIO, try)
import Control.Monad (forM, when)
import Data.Aeson
import qualified Data.Aeson.KeyMap as KeyMap
import qualified Data.ByteString as BS
import qualified Data.ByteString.Lazy.Char8 as BL
import Data.List (stripPrefix)
import Data.Maybe (fromMaybe)
import Data.String (fromString)
import Data.Version (showVersion)
import GHC.RTS.Flags (ParFlags (..), getParFlags)
import System.Mem (performMajorGC)
import System.Environment (getArgs)
import System.Exit (ExitCode (..), exitWith)
import System.IO (hFlush, hPrint, hPutStrLn, stderr, stdout)
import System.Info (fullCompilerVersion)

import BuildFlags (ghcFlags)
import Kit
import Libraries (libraries)
import Registry (workloads)

data Request = Request
  { workload, kind, mechanism :: String
  , params :: Params
  , warmup, runs :: Int
  }

-- | A floor request has no params. The trial's scratch directory is added to
-- the params, where Kit's 'scratch' reads it.
instance FromJSON Request where
  parseJSON = withObject "request" $ \o -> do
    given <- o .:? "params" .!= mempty
    withScratch <- maybe given (\dir -> KeyMap.insert "scratch" (String dir) given) <$> o .:? "scratch"
    Request <$> o .: "workload" <*> o .: "kind" <*> o .: "mechanism" <*> pure withScratch
            <*> o .: "warmup" <*> o .: "runs"

main :: IO ()
main = getArgs >>= \case
  ["--library", package] -> library package
  _ -> answerRequest

-- | The requirement probe of an optional package's mechanisms (runtime.toml's
-- requires): prints the version the kit was built with, or fails with why.
library :: String -> IO ()
library package = case lookup package libraries of
  Just version -> putStrLn (package ++ " " ++ version)
  Nothing -> hPrint stderr (builtWithout package) >> exitWith (ExitFailure 1)

answerRequest :: IO ()
answerRequest = do
  answer <- try serve
  case answer of
    Right response -> respond response
    Left (e :: SomeException) -> do
      let message = unwords (words (displayException e))
      hPutStrLn stderr ("concbench-haskell: " ++ message)
      respond (object ["ok" .= False, "error" .= message])
      exitWith (ExitFailure 1)

respond :: Value -> IO ()
respond response = BL.putStrLn (encode response) >> hFlush stdout

serve :: IO Value
serve = do
  request <- BS.getContents >>= either (refuse . ("request: " ++)) pure . eitherDecodeStrict
  (samples, extra) <- case kind request of
    -- The kit's floor (docs/protocol.md): read the request and answer, nothing else.
    "floor" -> pure ([], [])
    -- What the registry holds: every workload file's mechanisms.
    "list" -> pure ([], ["implements" .= object [fromString w .= map fst ms | (w, ms) <- workloads]])
    "fixed" -> do
      mechanisms <- maybe (refuse ("workload " ++ workload request ++ " is not implemented")) pure
        (lookup (workload request) workloads)
      prepare <- maybe (refuse ("workload " ++ workload request ++ " has no mechanism " ++ mechanism request)) pure
        (lookup (mechanism request) mechanisms)
      run <- prepare (params request)
      census <- newCensus (slots run)
      runs' <- forM [1 .. warmup request + runs request] $ \i -> measure run census (i <= warmup request)
      pure (runs', [])
    other -> refuse ("kind " ++ other ++ ": the Haskell kit has no rate workloads yet")
  -- The capabilities the RTS runs Haskell threads on (docs/protocol.md,
  -- "CPUs"): -N (the Makefile's -with-rtsopts) counts the CPUs of the
  -- affinity mask, so a trial confined to 1 CPU gets 1 (GHC 9.0.2);
  -- the option n1 (+RTS -N1) sets 1.
  capabilities <- getNumCapabilities
  scheduling <- schedulingFlags
  pure . object $
    [ "ok" .= True
    , "runtime" .= object
        [ "name" .= ("haskell" :: String)
        , "version" .= showVersion fullCompilerVersion
        , "flags" .= (ghcFlags ++ ["-N" ++ show capabilities] ++ scheduling ++ ["gc before each run"])
        , "parallelism" .= capabilities
        ]
    , "runs" .= samples
    ] <> extra
  where refuse = throwIO . KitError

-- | The RTS options in force that change how threads and collections use
-- the cores (the manifest's options pass them with +RTS ... -RTS).
schedulingFlags :: IO [String]
schedulingFlags = do
  flags <- getParFlags
  pure $ ["-qa" | setAffinity flags] ++ ["-qm" | not (migrate flags)] ++ ["-qg" | not (parGcEnabled flags)]

-- | One run: CPU time and the wall clock right around it (the wall clock
-- innermost), or around the part it timed with 'clocked'; the outcome is
-- forced inside, so no work escapes as a thunk.
-- Untimed, around them: the census cleared before and swept after, and the
-- RTS's thread numbers read before and after (see Kit's header).
-- Before all that, a major collection, so that no run pays for another's
-- garbage (nor the first for the kit's, stdin's Handle among it); it comes
-- before the first probe because a Handle's finalizer runs in a thread the
-- RTS starts after a GC, which would otherwise be created, and counted,
-- during a run.
measure :: Run -> Census -> Bool -> IO Value
measure run census isWarmup = do
  performMajorGC
  clearCensus census
  before <- probeThread
  start <- clockStart
  Outcome values events <- timed run census >>= evaluate . force
  stop <- clockStop
  (from, to) <- fromMaybe (start, stop) <$> clockedSpan census
  after <- probeThread
  Sweep bodies unended peak <- sweepCensus census
  -- The threads the run created: those numbered between the two probes.
  let created = after - before - 1
  when (unended > 0) $
    throwIO (KitError (show unended ++ " units were still running, or never awaited, when their run returned"))
  when (counting run /= Pooled && bodies > created) $
    throwIO (KitError ("the census counted " ++ show bodies ++ " units but the RTS created only "
                       ++ show created ++ " threads"))
  when (peak > created) $
    throwIO (KitError ("the census saw " ++ show peak ++ " bodies running at once but the RTS created only "
                       ++ show created ++ " threads"))
  when (counting run == Stamped && bodies /= created) $
    hPutStrLn stderr ("concbench-haskell: note: " ++ show bodies ++ " units stamped, "
                      ++ show created ++ " threads created (a finalizer thread?)")
  pure $ object $
    [ "warmup" .= isWarmup
    , "wall_ns" .= (wallNs to - wallNs from)
    , "user_ns" .= (userNs to - userNs from)
    , "sys_ns" .= (sysNs to - sysNs from)
    , "units" .= (if counting run == Created then created else bodies)
    , "peak_live" .= peak
    , "result" .= object [fromString name .= value | (name, value) <- values]
    ] ++ ["evidence" .= object [fromString name .= value | (name, value) <- events] | not (null events)]

-- | The number the RTS gave a probe thread, forked and awaited (so that it
-- is gone before the clock starts): threads are numbered as they are created.
probeThread :: IO Int
probeThread = do
  done <- newEmptyMVar
  probe <- forkIO (putMVar done ())
  takeMVar done
  case stripPrefix "ThreadId " (show probe) of
    Just number | [(n, "")] <- reads number -> pure n
    _ -> throwIO (KitError ("cannot read a thread's number from " ++ show probe))
