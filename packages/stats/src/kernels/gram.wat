;; Cross products of a block of columns, two rows at a time in f64x2 lanes (WebAssembly SIMD).
;; Source of gram-wasm.ts (regenerate with `npm run wasm -w @sml/stats`; a test checks the
;; committed bytes are this text assembled). See gram.ts for the contract.
(module
  (memory (export "memory") 1 65536)

  ;; strip(x, stride, b, out): for the columns a in [0, b + 4) and j in [0, 4):
  ;;   out[4a + j] = Σ_r X[a][r] · X[b + j][r]
  ;; X is column-major from byte `x`, a column every `stride` bytes (a multiple of 16: an even
  ;; number of rows, the padding rows zero); `b` is a multiple of 4 and the columns up to b + 3
  ;; exist. Tiles of 2 × 4 columns keep 8 accumulators and 6 operands in the 16 vector registers.
  (func (export "strip") (param $x i32) (param $stride i32) (param $b i32) (param $out i32)
    (local $a i32) (local $r i32) (local $o0 i32) (local $oa i32) (local $ob i32) (local $k i32)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (local $u v128) (local $w v128) (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (local.set $o0 (i32.add (local.get $x) (i32.mul (local.get $b) (local.get $stride))))
    (local.set $a (i32.const 0))
    (block $adone (loop $aloop
      (br_if $adone (i32.ge_u (local.get $a) (i32.add (local.get $b) (i32.const 4))))
      (local.set $oa (i32.add (local.get $x) (i32.mul (local.get $a) (local.get $stride))))
      (local.set $ob (i32.add (local.get $oa) (local.get $stride)))
      (local.set $s0 (v128.const f64x2 0 0)) (local.set $s1 (v128.const f64x2 0 0))
      (local.set $s2 (v128.const f64x2 0 0)) (local.set $s3 (v128.const f64x2 0 0))
      (local.set $t0 (v128.const f64x2 0 0)) (local.set $t1 (v128.const f64x2 0 0))
      (local.set $t2 (v128.const f64x2 0 0)) (local.set $t3 (v128.const f64x2 0 0))
      (local.set $r (i32.const 0))
      (block $rdone (loop $rloop
        (br_if $rdone (i32.ge_u (local.get $r) (local.get $stride)))
        (local.set $u (v128.load (i32.add (local.get $oa) (local.get $r))))
        (local.set $w (v128.load (i32.add (local.get $ob) (local.get $r))))
        (local.set $k (i32.add (local.get $o0) (local.get $r)))
        (local.set $v0 (v128.load (local.get $k)))
        (local.set $v1 (v128.load (i32.add (local.get $k) (local.get $stride))))
        (local.set $v2 (v128.load (i32.add (local.get $k) (i32.shl (local.get $stride) (i32.const 1)))))
        (local.set $v3 (v128.load (i32.add (local.get $k) (i32.mul (local.get $stride) (i32.const 3)))))
        (local.set $s0 (f64x2.add (local.get $s0) (f64x2.mul (local.get $u) (local.get $v0))))
        (local.set $s1 (f64x2.add (local.get $s1) (f64x2.mul (local.get $u) (local.get $v1))))
        (local.set $s2 (f64x2.add (local.get $s2) (f64x2.mul (local.get $u) (local.get $v2))))
        (local.set $s3 (f64x2.add (local.get $s3) (f64x2.mul (local.get $u) (local.get $v3))))
        (local.set $t0 (f64x2.add (local.get $t0) (f64x2.mul (local.get $w) (local.get $v0))))
        (local.set $t1 (f64x2.add (local.get $t1) (f64x2.mul (local.get $w) (local.get $v1))))
        (local.set $t2 (f64x2.add (local.get $t2) (f64x2.mul (local.get $w) (local.get $v2))))
        (local.set $t3 (f64x2.add (local.get $t3) (f64x2.mul (local.get $w) (local.get $v3))))
        (local.set $r (i32.add (local.get $r) (i32.const 16)))
        (br $rloop)))
      ;; The two lanes (even and odd rows) summed: out[4a + j] and out[4(a + 1) + j].
      (local.set $k (i32.add (local.get $out) (i32.shl (local.get $a) (i32.const 5))))
      (f64.store offset=0 (local.get $k) (f64.add (f64x2.extract_lane 0 (local.get $s0)) (f64x2.extract_lane 1 (local.get $s0))))
      (f64.store offset=8 (local.get $k) (f64.add (f64x2.extract_lane 0 (local.get $s1)) (f64x2.extract_lane 1 (local.get $s1))))
      (f64.store offset=16 (local.get $k) (f64.add (f64x2.extract_lane 0 (local.get $s2)) (f64x2.extract_lane 1 (local.get $s2))))
      (f64.store offset=24 (local.get $k) (f64.add (f64x2.extract_lane 0 (local.get $s3)) (f64x2.extract_lane 1 (local.get $s3))))
      (f64.store offset=32 (local.get $k) (f64.add (f64x2.extract_lane 0 (local.get $t0)) (f64x2.extract_lane 1 (local.get $t0))))
      (f64.store offset=40 (local.get $k) (f64.add (f64x2.extract_lane 0 (local.get $t1)) (f64x2.extract_lane 1 (local.get $t1))))
      (f64.store offset=48 (local.get $k) (f64.add (f64x2.extract_lane 0 (local.get $t2)) (f64x2.extract_lane 1 (local.get $t2))))
      (f64.store offset=56 (local.get $k) (f64.add (f64x2.extract_lane 0 (local.get $t3)) (f64x2.extract_lane 1 (local.get $t3))))
      (local.set $a (i32.add (local.get $a) (i32.const 2)))
      (br $aloop)))
  )
)
