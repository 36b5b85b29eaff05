# out[i] = f^iterations(in[i]), f(x) = (x*1664525 + 1013904223) ^ (that >> 16)
        S2R  R0, SR_GLOBAL_TID_X     # i
        S2R  R1, SR_NTID_X
        S2R  R2, SR_NCTAID_X
        IMUL R1, R1, R2              # stride = threads in the grid
        LDP  R2, n
        LDP  R3, in
        LDP  R4, out
        LDP  R5, iterations
loop:   ISETP.GE P0, R0, R2
@P0     EXIT
        SHL  R6, R0, 2
        IADD R7, R3, R6
        LD   R8, [R7]
        MOV  R9, 0
iter:   ISETP.GE P1, R9, R5
@P1     BRA  store
        IMAD R8, R8, 1664525, 1013904223
        SHR  R10, R8, 16
        XOR  R8, R8, R10
        IADD R9, R9, 1
        BRA  iter
store:  IADD R7, R4, R6
        ST   [R7], R8
        IADD R0, R0, R1
        BRA  loop
