{-# LANGUAGE OverloadedStrings, ScopedTypeVariables #-}
-- | The concbench Haskell kit: reads one request (JSON) on stdin, runs the
-- mechanism warmup + runs times, prints one response line (JSON) on stdout.
-- See docs/protocol.md; Kit.hs is what the workload files see.
module Main (main) where

import Control.Concurrent (getNumCapabilities)
import Control.DeepSeq (force)
import Control.Exception (SomeException, displayException, evaluate, throwIO, try)
import Control.Monad (forM, unless)
import Data.Aeson
import qualified Data.ByteString as BS
import qualified Data.ByteString.Lazy.Char8 as BL
import Data.Int (Int64)
import Data.String (fromString)
import Data.Version (showVersion)
import Foreign.C.Error (throwErrnoIfMinus1_)
import Foreign.C.Types (CInt (..))
import Foreign.Marshal.Array (allocaArray)
import Foreign.Ptr (Ptr)
import Foreign.Storable (peekElemOff)
import GHC.Clock (getMonotonicTimeNSec)
import System.Exit (ExitCode (..), exitWith)
import System.IO (hFlush, hPutStrLn, stderr, stdout)
import System.Info (fullCompilerVersion)

import BuildFlags (ghcFlags)
import Kit
import qualified Workloads.Future as Future
import qualified Workloads.Latch as Latch
import qualified Workloads.Mailbox as Mailbox
import qualified Workloads.MutexCpu as MutexCpu
import qualified Workloads.Pipe as Pipe
import qualified Workloads.Pool as Pool
import qualified Workloads.Queue as Queue
import qualified Workloads.Ring as Ring
import qualified Workloads.Spawn as Spawn

workloads :: [(String, [(String, Mechanism)])]
workloads =
  [ ("spawn", Spawn.mechanisms)
  , ("pipe", Pipe.mechanisms)
  , ("mutex-cpu", MutexCpu.mechanisms)
  , ("queue", Queue.mechanisms)
  , ("ring", Ring.mechanisms)
  , ("mailbox", Mailbox.mechanisms)
  , ("pool", Pool.mechanisms)
  , ("future", Future.mechanisms)
  , ("latch", Latch.mechanisms)
  ]

data Request = Request
  { workload, kind, mechanism :: String
  , params :: Params
  , warmup, runs :: Int
  }

instance FromJSON Request where
  parseJSON = withObject "request" $ \o ->
    Request <$> o .: "workload" <*> o .: "kind" <*> o .: "mechanism" <*> o .: "params"
            <*> o .: "warmup" <*> o .: "runs"

main :: IO ()
main = do
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
  unless (kind request == "fixed") $
    refuse ("kind " ++ kind request ++ ": the Haskell kit has no rate workloads yet")
  mechanisms <- maybe (refuse ("workload " ++ workload request ++ " is not implemented")) pure
    (lookup (workload request) workloads)
  prepare <- maybe (refuse ("workload " ++ workload request ++ " has no mechanism " ++ mechanism request)) pure
    (lookup (mechanism request) mechanisms)
  run <- prepare (params request)
  samples <- forM [1 .. warmup request + runs request] $ \i -> measure run (i <= warmup request)
  capabilities <- getNumCapabilities
  pure $ object
    [ "ok" .= True
    , "runtime" .= object
        [ "name" .= ("haskell" :: String)
        , "version" .= showVersion fullCompilerVersion
        , "flags" .= (ghcFlags ++ ["-N" ++ show capabilities])
        ]
    , "runs" .= samples
    ]
  where refuse = throwIO . KitError

-- | One run: CPU time and the wall clock right around it (the wall clock
-- innermost); the outcome is forced inside, so no work escapes as a thunk.
measure :: IO Outcome -> Bool -> IO Value
measure run isWarmup = do
  (user0, sys0) <- cpuTime
  wall0 <- getMonotonicTimeNSec
  Outcome values created <- run >>= evaluate . force
  wall1 <- getMonotonicTimeNSec
  (user1, sys1) <- cpuTime
  pure $ object
    [ "warmup" .= isWarmup
    , "wall_ns" .= (wall1 - wall0)
    , "user_ns" .= (user1 - user0)
    , "sys_ns" .= (sys1 - sys0)
    , "units" .= created
    , "result" .= object [fromString name .= value | (name, value) <- values]
    ]

foreign import ccall unsafe "concbench_cpu_ns" c_cpu_ns :: Ptr Int64 -> IO CInt

-- | User and system CPU time of the whole process so far, in nanoseconds.
cpuTime :: IO (Int64, Int64)
cpuTime = allocaArray 2 $ \out -> do
  throwErrnoIfMinus1_ "getrusage" (c_cpu_ns out)
  (,) <$> peekElemOff out 0 <*> peekElemOff out 1
