# out[t] = sum of in[(t * stride + k) & mask] for k < count
        S2R  R0, SR_GLOBAL_TID_X     # t
        LDP  R1, threads
        ISETP.GE P0, R0, R1
@P0     EXIT
        LDP  R2, stride
        IMUL R3, R0, R2              # first index t * stride
        LDP  R4, mask
        LDP  R5, in
        LDP  R6, count
        MOV  R7, 0                   # sum
        MOV  R8, 0                   # k
loop:   ISETP.GE P1, R8, R6
@P1     BRA  done
        IADD R9, R3, R8
        AND  R9, R9, R4              # wrap at the end of in
        SHL  R9, R9, 2
        IADD R9, R5, R9
        LD   R10, [R9]
        IADD R7, R7, R10
        IADD R8, R8, 1
        BRA  loop
done:   SHL  R11, R0, 2
        LDP  R12, out
        IADD R12, R12, R11
        ST   [R12], R7
        EXIT
