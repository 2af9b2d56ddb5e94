-- | Futures: create `futures` futures, all before awaiting any; future i
-- computes (i x i) mod 1000. Then await each one and sum the values.
module Workloads.Future (mechanisms) where

import Control.Concurrent.Async (async, wait)
import Control.Exception (evaluate)

import Kit

-- | forkio: a forked thread filling an MVar (Kit's fork). async: async is
-- the future and wait awaits it (a forked thread filling a TMVar, its
-- exception rethrown); the RTS counts its threads (Kit's header).
mechanisms :: [(String, Mechanism)]
mechanisms =
  [ ("forkio", future Stamped (\census _ -> fork forkio census))
  , ("async", future Created (\census i body -> wait <$> async (unit census i body)))
  ]

-- | Given how future i starts (the action it returns awaits its value).
future :: Counting -> (Census -> Int -> IO Int -> IO (IO Int)) -> Mechanism
future how start params = do
  futures <- int params "futures"
  pure Run
    { slots = futures, counting = how
    , timed = \census -> do
        awaits <- mapM (\i -> start census i (evaluate ((i * i) `mod` 1000))) [0 .. futures - 1]
        total <- foldStrict awaits
        pure (Outcome [("sum", total)] [])
    }
