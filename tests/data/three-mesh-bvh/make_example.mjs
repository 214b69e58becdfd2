// Builds a three-mesh-bvh MeshBVH over an icosphere and writes what MeshBVH.serialize()
// returns as JSON with base64 buffers and as its binary buffers, and the mesh as an OBJ (the vertices are the
// geometry's float32 positions, written exactly).
//
//   node make_example.mjs DETAIL OUT_STEM [indirect]
//
// writes OUT_STEM.obj, OUT_STEM.json and OUT_STEM.3mbvh (the binary form, documented in
// core/bvh/three_mesh_bvh.py); run in a folder where `npm install three
// three-mesh-bvh` was run (see README.md here for the exact commands and versions).
import { readFileSync, writeFileSync } from 'node:fs';
import { IcosahedronGeometry } from 'three';
import { mergeVertices } from 'three/examples/jsm/utils/BufferGeometryUtils.js';
import { MeshBVH, SAH } from 'three-mesh-bvh';

const [ detailText, stem, mode ] = process.argv.slice( 2 );
const indirect = mode === 'indirect';
// Positions only, so that mergeVertices joins the sphere's seams: a closed mesh.
const sphere = new IcosahedronGeometry( 1, Number( detailText ) );
sphere.deleteAttribute( 'normal' );
sphere.deleteAttribute( 'uv' );
const geometry = mergeVertices( sphere );
const original = geometry.index.array.slice();
const position = geometry.attributes.position;
const lines = [];
for ( let i = 0; i < position.count; i ++ ) {

	lines.push( `v ${ position.getX( i ) } ${ position.getY( i ) } ${ position.getZ( i ) }` );

}
for ( let i = 0; i < original.length; i += 3 ) {

	lines.push( `f ${ original[ i ] + 1 } ${ original[ i + 1 ] + 1 } ${ original[ i + 2 ] + 1 }` );

}
writeFileSync( `${ stem }.obj`, lines.join( '\n' ) + '\n' );

const bvh = new MeshBVH( geometry, { strategy: SAH, targetLeafSize: 5, indirect } );
const data = MeshBVH.serialize( bvh );
const typed = array => array === null ? null : {
	type: array.constructor.name,
	data: Buffer.from( array.buffer, array.byteOffset, array.byteLength ).toString( 'base64' ),
};
const bvhPackage = new URL( '../package.json', import.meta.resolve( 'three-mesh-bvh' ) );
const json = {
	format: 'three-mesh-bvh',
	library_version: JSON.parse( readFileSync( bvhPackage ) ).version,
	version: data.version,
	roots: data.roots.map( root => Buffer.from( root ).toString( 'base64' ) ),
	index: typed( data.index ),
	indirectBuffer: typed( data.indirectBuffer ),
};
writeFileSync( `${ stem }.json`, JSON.stringify( json ) + '\n' );

// The binary form: "3MBVH\0", uint16 container version 1, uint32 header length, the JSON
// header (each buffer as {offset, length} into the data that follows), then the buffers.
const chunks = [];
let at = 0;
const place = bytes => {

	const view = Buffer.from( bytes.buffer ?? bytes, bytes.byteOffset ?? 0, bytes.byteLength );
	chunks.push( view );
	const where = { offset: at, length: view.byteLength };
	at += view.byteLength;
	return where;

};
const placeTyped = array => array === null ? null : { type: array.constructor.name, data: place( array ) };
const header = Buffer.from( JSON.stringify( {
	format: 'three-mesh-bvh',
	library_version: json.library_version,
	version: data.version,
	roots: data.roots.map( root => place( new Uint8Array( root ) ) ),
	index: placeTyped( data.index ),
	indirectBuffer: placeTyped( data.indirectBuffer ),
} ) );
const lead = Buffer.alloc( 12 );
lead.write( '3MBVH\0', 0, 'latin1' );
lead.writeUInt16LE( 1, 6 );
lead.writeUInt32LE( header.byteLength, 8 );
writeFileSync( `${ stem }.3mbvh`, Buffer.concat( [ lead, header, ...chunks ] ) );
console.log( `${ stem }: ${ original.length / 3 } triangles, ${ data.roots[ 0 ].byteLength / 32 } nodes` );
