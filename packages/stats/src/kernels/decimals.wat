;; The data rows of a JSON DataFrame of C columns read into int32 decimal mantissas: the hot
;; loop of the gateway's frame reading (frame-json.ts readFrameDecimals), for the common frame.
;; Source of decimals-wasm.ts (regenerate with `npm run wasm -w @sml/stats`; a test checks the
;; committed bytes are this text assembled). See decimals.ts for the contract.
(module
  (memory (export "memory") 1 65536)
  ;; 10^0 … 10^9 as i64 at bytes 0–79: the caller's data starts at byte TABLE_BYTES (decimals.ts).
  (data (i32.const 0) "\01\00\00\00\00\00\00\00\0a\00\00\00\00\00\00\00\64\00\00\00\00\00\00\00\e8\03\00\00\00\00\00\00\10\27\00\00\00\00\00\00\a0\86\01\00\00\00\00\00\40\42\0f\00\00\00\00\00\80\96\98\00\00\00\00\00\00\e1\f5\05\00\00\00\00\00\ca\9a\3b\00\00\00\00")
  ;; Where the last successful rows() stopped: the byte after the data array's closing bracket.
  (global $end (export "end") (mut i32) (i32.const 0))

;; 10^k for 0 ≤ k ≤ 9.
  (func $pow10 (param $k i32) (result i64)
    (i64.load (i32.shl (local.get $k) (i32.const 3))))

  ;; rows(p, width, out, cap, scales) reads rows [ "d", "d", … ] from byte p, separated by
  ;; commas, up to the data array's closing bracket, and returns how many it read. Each cell is
  ;; a quoted plain decimal (an optional minus, at most 9 digits, an optional point and at most
  ;; 9 digits, at least one digit in all) or "" (missing). Cell c of row r goes to the int32 at
  ;; out + 4·(c·cap + r): its value times 10^scale[c], where scales (an int32 per column, from 0)
  ;; only grows, to the most decimals a cell of the column had (trailing zeros dropped), the
  ;; column's rows so far multiplied up each time; missing = -2^31. Anything else (spacing,
  ;; another form of cell, a magnitude of 2^31 or more at the column's scale, -0, a ragged row)
  ;; returns -1, and more than `cap` rows -2: the caller then reads the frame in JavaScript.
  ;; The byte after the input must be 0 (it stops every scan there), and 16 bytes past any cell
  ;; must be memory (a cell is read with one 16-byte load: SIMD, when it is the common short one).
  (func (export "rows") (param $p i32) (param $width i32) (param $out i32) (param $cap i32) (param $scales i32) (result i32)
    (local $row i32) (local $c i32) (local $col i32) (local $ch i32) (local $d i32)
    (local $neg i32) (local $intDigits i32) (local $frac i32) (local $fracDigits i32) (local $start i32)
    (local $k i32) (local $r i32) (local $m i64) (local $factor i64) (local $x i64)
    (local $v v128) (local $len i32) (local $rest i32) (local $dots i32) (local $dotAt i32) (local $fast i32) (local $lanes v128) (local $sum v128)
    (loop $rows
      (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x5b)) (then (return (i32.const -1))))
      (if (i32.ge_u (local.get $row) (local.get $cap)) (then (return (i32.const -2))))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (local.set $c (i32.const 0))
      (loop $cells
        (if (local.get $c) (then
          (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x2c)) (then (return (i32.const -1))))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))))
        (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x22)) (then (return (i32.const -1))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $col (i32.add (local.get $out) (i32.shl (i32.mul (local.get $c) (local.get $cap)) (i32.const 2))))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x22))
          (then
            ;; "": missing.
            (i32.store (i32.add (local.get $col) (i32.shl (local.get $row) (i32.const 2))) (i32.const 0x80000000))
            (local.set $p (i32.add (local.get $p) (i32.const 1))))
          (else
;; The common cell (a sign, at most 15 bytes up to its closing quote) from one 16-byte
            ;; load: its closing quote, the dot and the digits found as lane masks; the digits
            ;; (the dot left out) moved to the last lanes and summed in three multiply-add steps.
            ;; Any cell it does not take is read byte by byte below, which gives the same answer
            ;; or refuses the frame: the fast path only changes how an accepted cell is read.
            ;; Reading 16 bytes from p stays inside the memory: the caller's columns follow the input.
            (local.set $fast (i32.const 0))
            (local.set $v (v128.load (local.get $p)))
            (local.set $len (i32.ctz (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22)))))
            (if (i32.lt_u (local.get $len) (i32.const 16)) (then
              (local.set $neg (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2d)))
              ;; The lanes between the sign and the closing quote: digits, and at most one dot.
              (local.set $rest (i32.and (i32.sub (i32.shl (i32.const 1) (local.get $len)) (i32.const 1)) (i32.xor (local.get $neg) (i32.const -1))))
              (local.set $dots (i32.and (local.get $rest) (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 0x2e 0x2e 0x2e 0x2e 0x2e 0x2e 0x2e 0x2e 0x2e 0x2e 0x2e 0x2e 0x2e 0x2e 0x2e 0x2e)))))
              (local.set $lanes (i8x16.sub (local.get $v) (v128.const i8x16 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30)))
              (if (i32.and
                    (i32.eqz (i32.and (local.get $dots) (i32.sub (local.get $dots) (i32.const 1))))
                    (i32.eq (i32.and (i32.or (i8x16.bitmask (i8x16.le_u (local.get $lanes) (v128.const i8x16 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9))) (local.get $dots)) (local.get $rest)) (local.get $rest)))
                (then
                  (local.set $dotAt (select (i32.ctz (local.get $dots)) (local.get $len) (local.get $dots)))
                  (local.set $intDigits (i32.sub (local.get $dotAt) (local.get $neg)))
                  (local.set $fracDigits (select (i32.sub (i32.sub (local.get $len) (local.get $dotAt)) (i32.const 1)) (i32.const 0) (local.get $dots)))
                  (if (i32.and (i32.and (i32.le_u (local.get $intDigits) (i32.const 9)) (i32.le_u (local.get $fracDigits) (i32.const 9)))
                               (i32.ne (i32.add (local.get $intDigits) (local.get $fracDigits)) (i32.const 0)))
                    (then
                      ;; Lane i takes digit j = i - (16 - digits): the byte at sign + j, one further
                      ;; past the dot; lanes before the first digit take an index out of range (0).
                      (local.set $sum (i8x16.sub
                        (v128.const i8x16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
                        (i8x16.splat (i32.sub (i32.const 16) (i32.add (local.get $intDigits) (local.get $fracDigits))))))
                      (local.set $sum (v128.or
                        (i8x16.add
                          (i8x16.add (local.get $sum) (i8x16.splat (local.get $neg)))
                          (v128.and (i8x16.ge_s (local.get $sum) (i8x16.splat (local.get $intDigits))) (i8x16.splat (i32.ne (local.get $dots) (i32.const 0)))))
                        (i8x16.lt_s (local.get $sum) (v128.const i8x16 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0))))
                      (local.set $lanes (i8x16.swizzle (local.get $lanes) (local.get $sum)))
                      ;; 16 digits → 8 of two → 4 of four → 2 of eight (each step a multiply-add of pairs).
                      (local.set $sum (i16x8.narrow_i32x4_s
                        (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_u (local.get $lanes)) (v128.const i16x8 10 1 10 1 10 1 10 1))
                        (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_u (local.get $lanes)) (v128.const i16x8 10 1 10 1 10 1 10 1))))
                      (local.set $sum (i32x4.dot_i16x8_s (local.get $sum) (v128.const i16x8 100 1 100 1 100 1 100 1)))
                      (local.set $sum (i32x4.dot_i16x8_s (i16x8.narrow_i32x4_s (local.get $sum) (local.get $sum)) (v128.const i16x8 10000 1 10000 1 10000 1 10000 1)))
                      (local.set $m (i64.add
                        (i64.mul (i64.extend_i32_u (i32x4.extract_lane 0 (local.get $sum))) (i64.const 100000000))
                        (i64.extend_i32_u (i32x4.extract_lane 1 (local.get $sum)))))
                      (local.set $p (i32.add (local.get $p) (i32.add (local.get $len) (i32.const 1))))
                      (local.set $fast (i32.const 1))))))))
            (if (i32.eqz (local.get $fast)) (then
            (local.set $neg (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2d)))
            (local.set $p (i32.add (local.get $p) (local.get $neg)))
            ;; The integer part, in an i64 (ten digits or more are refused below).
            (local.set $start (local.get $p))
            (local.set $m (i64.const 0))
            (block $intDone (loop $int
              (local.set $d (i32.sub (i32.load8_u (local.get $p)) (i32.const 0x30)))
              (br_if $intDone (i32.gt_u (local.get $d) (i32.const 9)))
              (local.set $m (i64.add (i64.mul (local.get $m) (i64.const 10)) (i64.extend_i32_u (local.get $d))))
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (br $int)))
            (local.set $intDigits (i32.sub (local.get $p) (local.get $start)))
            (local.set $frac (i32.const 0))
            (local.set $fracDigits (i32.const 0))
            (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2e)) (then
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (local.set $start (local.get $p))
              (block $fracDone (loop $fracLoop
                (local.set $d (i32.sub (i32.load8_u (local.get $p)) (i32.const 0x30)))
                (br_if $fracDone (i32.gt_u (local.get $d) (i32.const 9)))
                ;; Wraps past 9 digits: refused below before use.
                (local.set $frac (i32.add (i32.mul (local.get $frac) (i32.const 10)) (local.get $d)))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $fracLoop)))
              (local.set $fracDigits (i32.sub (local.get $p) (local.get $start)))))
            (if (i32.or
                  (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x22))
                  (i32.or (i32.eqz (i32.add (local.get $intDigits) (local.get $fracDigits)))
                          (i32.or (i32.gt_u (local.get $intDigits) (i32.const 9)) (i32.gt_u (local.get $fracDigits) (i32.const 9)))))
              (then (return (i32.const -1))))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            ;; m = integer part · 10^decimals + decimals (below 10^18: exact in an i64).
            (local.set $m (i64.add (i64.mul (local.get $m) (call $pow10 (local.get $fracDigits))) (i64.extend_i32_u (local.get $frac))))))
            (local.set $k (i32.load (i32.add (local.get $scales) (i32.shl (local.get $c) (i32.const 2)))))
            ;; Trailing zeros of the decimals do not count: the scale is the smallest that holds
            ;; the value. Only a cell with more decimals than the column's scale needs them dropped
            ;; (a trailing zero of the decimals is one of m = integer part · 10^decimals + decimals).
            (if (i32.gt_u (local.get $fracDigits) (local.get $k)) (then
              (block $stripped (loop $strip
                (br_if $stripped (i32.eqz (local.get $fracDigits)))
                (br_if $stripped (i64.ne (i64.rem_u (local.get $m) (i64.const 10)) (i64.const 0)))
                (local.set $m (i64.div_u (local.get $m) (i64.const 10)))
                (local.set $fracDigits (i32.sub (local.get $fracDigits) (i32.const 1)))
                (br $strip)))))
            (if (i64.gt_u (local.get $m) (i64.const 2147483647)) (then (return (i32.const -1))))
            (if (i32.and (local.get $neg) (i64.eqz (local.get $m))) (then (return (i32.const -1))))
            (if (i32.gt_u (local.get $fracDigits) (local.get $k)) (then
              ;; More decimals than the column had: its rows so far times 10^(decimals - scale).
              (local.set $factor (call $pow10 (i32.sub (local.get $fracDigits) (local.get $k))))
              (local.set $r (i32.const 0))
              (block $scaled (loop $scale
                (br_if $scaled (i32.ge_u (local.get $r) (local.get $row)))
                (local.set $start (i32.add (local.get $col) (i32.shl (local.get $r) (i32.const 2))))
                (local.set $d (i32.load (local.get $start)))
                (if (i32.ne (local.get $d) (i32.const 0x80000000)) (then
                  (local.set $x (i64.mul (i64.extend_i32_s (local.get $d)) (local.get $factor)))
                  (if (i32.or (i64.gt_s (local.get $x) (i64.const 2147483647)) (i64.lt_s (local.get $x) (i64.const -2147483647)))
                    (then (return (i32.const -1))))
                  (i32.store (local.get $start) (i32.wrap_i64 (local.get $x)))))
                (local.set $r (i32.add (local.get $r) (i32.const 1)))
                (br $scale)))
              (local.set $k (local.get $fracDigits))
              (i32.store (i32.add (local.get $scales) (i32.shl (local.get $c) (i32.const 2))) (local.get $k))))
            ;; The cell at the column's scale.
            (local.set $m (i64.mul (local.get $m) (call $pow10 (i32.sub (local.get $k) (local.get $fracDigits)))))
            (if (i64.gt_u (local.get $m) (i64.const 2147483647)) (then (return (i32.const -1))))
            (i32.store (i32.add (local.get $col) (i32.shl (local.get $row) (i32.const 2)))
              (select (i32.sub (i32.const 0) (i32.wrap_i64 (local.get $m))) (i32.wrap_i64 (local.get $m)) (local.get $neg)))))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br_if $cells (i32.lt_u (local.get $c) (local.get $width))))
      (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x5d)) (then (return (i32.const -1))))
      (local.set $row (i32.add (local.get $row) (i32.const 1)))
      (local.set $ch (i32.load8_u (i32.add (local.get $p) (i32.const 1))))
      (local.set $p (i32.add (local.get $p) (i32.const 2)))
      (br_if $rows (i32.eq (local.get $ch) (i32.const 0x2c))))
    (if (i32.ne (local.get $ch) (i32.const 0x5d)) (then (return (i32.const -1))))
    (global.set $end (local.get $p))
    (local.get $row))
)
